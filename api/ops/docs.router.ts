/**
 * `/docs`: the OpenAPI 3.1 description (`openapi.yaml`, the one source of truth) rendered with
 * Swagger UI from swagger-ui-dist's own files — no CDN, so the page works offline; the spec
 * itself at `/docs/openapi.yaml` and `/docs/openapi.json`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';

const here = dirname(fileURLToPath(import.meta.url));
/** Candidates: the repository root (from `api/ops/`) and the image's `/app` (from `dist/api/ops/`). */
const CANDIDATES = [join(here, '../../openapi.yaml'), join(here, '../../../openapi.yaml')];

/** Absolute path of openapi.yaml; throws at start-up, not on the first request, when it is missing. */
export function openapiPath(): string {
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found) throw new Error(`openapi.yaml not found (looked at ${CANDIDATES.join(', ')})`);
  return found;
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Coupon and wallet service API</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;
// A separate script rather than inline, so the page also works under a strict Content-Security-Policy.
const INIT = `window.ui = SwaggerUIBundle({ url: '/docs/openapi.json', dom_id: '#swagger-ui', deepLinking: true });`;

/**
 * swagger-ui-dist's folder, found without loading the package: its main module requires the
 * 1.5 MB browser bundle (≈180 ms of a process's start-up), which only the browser needs.
 */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * The docs routes. The spec is read at start-up (a missing file fails the start) and parsed on the
 * first request for its JSON form: parsing it costs every process ≈200 ms of start-up, and most
 * replicas are never asked.
 */
export function docsRouter(): Router {
  const yamlText = readFileSync(openapiPath(), 'utf8');
  let json: Promise<unknown> | undefined;
  const r = Router();
  r.get('/docs', (_req, res) => void res.type('html').send(PAGE));
  r.get('/docs/init.js', (_req, res) => void res.type('application/javascript').send(INIT));
  r.get('/docs/openapi.yaml', (_req, res) => void res.type('application/yaml').send(yamlText));
  r.get('/docs/openapi.json', async (_req, res) => {
    json ??= import('yaml').then(({ parse }) => parse(yamlText) as unknown);
    res.json(await json);
  });
  r.use('/docs/assets', express.static(SWAGGER_UI_DIR, { index: false }));
  return r;
}
