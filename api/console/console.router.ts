/**
 * `/console`: the promotions console (console/, a React app built by Vite into console/dist) as
 * static files. Every path under /console that is not a file answers its index.html (the app
 * routes after `#`); hashed assets are cached for a year, index.html never; all compressed (brotli
 * or gzip) when the browser accepts it. Built files only: when console/dist is missing, /console
 * says how to build it. The app calls the admin API with the operator's session (docs/console.md).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import compression from 'compression';
import express, { Router, type Response } from 'express';

export const CONSOLE_PATH = '/console';
const NOT_BUILT = 'The console is not built: run `npm install`, then `npm run build --prefix console` (docs/console.md).\n';

const here = dirname(fileURLToPath(import.meta.url));
/** Candidates: the repository (from `api/console/`) and the image's `/app` (from `dist/api/console/`). */
const CANDIDATES = [join(here, '../../console/dist'), join(here, '../../../console/dist')];

/** Only this origin's scripts, styles and API; no framing (clickjacking); no inline script. */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function secure(res: Response) {
  res.setHeader('content-security-policy', CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'same-origin');
}

/** The built console's folder, or null when it was not built. */
const builtConsole = (): string | null => CANDIDATES.find((d) => existsSync(join(d, 'index.html'))) ?? null;

export function consoleRouter(dir: string | null = builtConsole()): Router {
  const r = Router();
  if (!dir) {
    r.use(CONSOLE_PATH, (_req, res) => {
      res.status(404).type('text').send(NOT_BUILT);
    });
    return r;
  }
  const index = join(dir, 'index.html');
  // Compressed for a browser that asks (brotli, else gzip; `Vary: Accept-Encoding`): the console's
  // script is some 360 KB as built, under 110 KB gzipped. Per request, but the hashed assets are
  // cached for a year, so a browser fetches each once per build.
  r.use(CONSOLE_PATH, compression());
  r.use(
    `${CONSOLE_PATH}/assets`,
    express.static(join(dir, 'assets'), {
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => secure(res),
    }),
  );
  // A file the build does not hold (an old tab asking for the previous build's asset): 404.
  r.use(`${CONSOLE_PATH}/assets`, (_req, res) => void res.status(404).type('text').send('not found\n'));
  r.get([CONSOLE_PATH, `${CONSOLE_PATH}/{*rest}`], (_req, res, next) => {
    secure(res);
    res.setHeader('cache-control', 'no-cache');
    // index.html gone since start-up (dist/ removed by hand): the same 404 as never built.
    res.sendFile(index, (err) => {
      if (!err) return;
      if (res.headersSent) return next(err);
      res.status(404).type('text').send(NOT_BUILT);
    });
  });
  return r;
}
