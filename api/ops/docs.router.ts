/**
 * `/docs`: the OpenAPI 3.1 description (`openapi.yaml`, the one source of truth) rendered with
 * Swagger UI from swagger-ui-dist's files (no CDN: works offline); the spec itself at
 * `/docs/openapi.yaml` and `/docs/openapi.json`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { parse } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
/** openapi.yaml sits at the repository root (and beside dist/ in the image). */
export const OPENAPI_PATH = [join(here, '../../openapi.yaml'), join(here, '../../../openapi.yaml')].find((p) => {
  try {
    readFileSync(p);
    return true;
  } catch {
    return false;
  }
})!;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Coupon and wallet service API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;
const INIT = `window.ui = SwaggerUIBundle({ url: '/docs/openapi.json', dom_id: '#swagger-ui', deepLinking: true });`;

export function docsRouter(): Router {
  const yamlText = readFileSync(OPENAPI_PATH, 'utf8');
  const json = parse(yamlText);
  const r = Router();
  r.get('/docs', (_req, res) => void res.type('html').send(PAGE));
  r.get('/docs/init.js', (_req, res) => void res.type('application/javascript').send(INIT));
  r.get('/docs/openapi.yaml', (_req, res) => void res.type('application/yaml').send(yamlText));
  r.get('/docs/openapi.json', (_req, res) => void res.json(json));
  r.use('/docs/assets', express.static(getAbsoluteFSPath(), { index: false }));
  return r;
}
