/**
 * /console's static serving (api/console/console.router.ts) over a built folder of its own: the
 * app's page for every path under /console, immutable hashed assets, a 404 (never a 5xx) for a
 * missing file, and the build command when nothing was built.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import express from 'express';
import { consoleRouter } from '../../api/console/console.router.js';

async function serve(dir: string | null) {
  const app = express();
  app.use(consoleRouter(dir));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('console: the /console route', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');

  it('when any path under /console is asked, then the app page answers with a CSP and no caching; assets are immutable; a missing asset is 404', async () => {
    const s = await serve(dir);
    try {
      for (const path of ['/console', '/console/', '/console/anything/deep']) {
        const res = await fetch(`${s.url}${path}`);
        expect(res.status, path).to.equal(200);
        expect(await res.text()).to.include('<title>console</title>');
        expect(res.headers.get('content-security-policy')).to.include("frame-ancestors 'none'");
        expect(res.headers.get('cache-control')).to.equal('no-cache');
      }
      const asset = await fetch(`${s.url}/console/assets/index-abc123.js`);
      expect(asset.status).to.equal(200);
      expect(asset.headers.get('cache-control')).to.include('immutable');
      expect((await fetch(`${s.url}/console/assets/nope.js`)).status).to.equal(404);
    } finally {
      s.close();
    }
  });

  it('when the console was never built, then /console is a 404 that names the build command', async () => {
    const s = await serve(null);
    try {
      const res = await fetch(`${s.url}/console/`);
      expect(res.status).to.equal(404);
      expect(await res.text()).to.include('npm run build --prefix console');
    } finally {
      s.close();
    }
  });

  it('when index.html disappears after start-up, then /console is the same 404 naming the build command (not an error passed on: the API once answered it 400 "invalid JSON")', async () => {
    const gone = mkdtempSync(join(tmpdir(), 'console-dist-'));
    writeFileSync(join(gone, 'index.html'), '<!doctype html><title>console</title>');
    const s = await serve(gone);
    try {
      expect((await fetch(`${s.url}/console/`)).status).to.equal(200);
      rmSync(join(gone, 'index.html'));
      const res = await fetch(`${s.url}/console/`);
      expect(res.status).to.equal(404);
      expect(await res.text()).to.include('npm run build --prefix console');
    } finally {
      s.close();
      rmSync(gone, { recursive: true, force: true });
    }
  });
});
