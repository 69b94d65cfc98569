/**
 * /console's static serving (api/console/console.router.ts) over a built folder of its own: the
 * app's page for every path under /console, immutable hashed assets, a 404 (never a 5xx) for a
 * missing file, compressed answers for a browser that accepts them, and the build command when
 * nothing was built.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
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

/** The bytes as sent (fetch would decode them): node:http, with the request headers given. */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).once('error', reject);
  });
}

describe('console: the /console route', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
  // A bundle's worth of script: above the size worth compressing, and compressible as a bundle is.
  const bundle = Buffer.from(Array.from({ length: 3000 }, (_, i) => `export const value${i} = ${i * 7} + "console";\n`).join(''));
  writeFileSync(join(dir, 'assets', 'index-big456.js'), bundle);

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

  it('when a browser accepts gzip or brotli, then an asset comes compressed (decoding to the file, still immutable); without Accept-Encoding it comes as it is', async () => {
    const s = await serve(dir);
    try {
      const url = `${s.url}/console/assets/index-big456.js`;
      const decoders: Record<string, (b: Buffer) => Buffer> = { gzip: gunzipSync, br: brotliDecompressSync };
      for (const encoding of ['gzip', 'br']) {
        const res = await rawGet(url, { 'accept-encoding': encoding });
        expect(res.status, encoding).to.equal(200);
        expect(res.headers['content-encoding'], encoding).to.equal(encoding);
        expect(res.headers['vary'], encoding).to.match(/accept-encoding/i);
        expect(res.headers['cache-control'], encoding).to.include('immutable');
        expect(res.headers['content-type'], encoding).to.match(/javascript/);
        expect(res.body.length, `${encoding}: ${res.body.length} of ${bundle.length} bytes`).to.be.below(bundle.length / 4);
        expect(decoders[encoding]!(res.body).equals(bundle), `${encoding} decodes to the file`).to.equal(true);
      }
      // A browser that names both gets brotli, the smaller.
      expect((await rawGet(url, { 'accept-encoding': 'gzip, deflate, br' })).headers['content-encoding']).to.equal('br');
      const plain = await rawGet(url, {});
      expect(plain.status).to.equal(200);
      expect(plain.headers['content-encoding']).to.equal(undefined);
      expect(plain.headers['vary']).to.match(/accept-encoding/i);
      expect(plain.body.equals(bundle), 'identity: the file itself').to.equal(true);
      const identity = await rawGet(url, { 'accept-encoding': 'identity' });
      expect(identity.headers['content-encoding']).to.equal(undefined);
      expect(identity.body.equals(bundle)).to.equal(true);
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
