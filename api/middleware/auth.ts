import type { RequestHandler } from 'express';
import type { ApplicationRecord } from '../../shared/data/application.repository.js';
import type { Services } from '../../shared/services.js';
import { unauthorizedFor, type ClientRoute } from '../../shared/client-errors.js';

declare module 'express-serve-static-core' {
  interface Locals {
    app: ApplicationRecord;
  }
}

/** Parses `Authorization: Basic base64(apiKey:secret)`; anything malformed is null. */
export function parseBasicAuth(header: string | undefined): { apiKey: string; secret: string } | null {
  if (!header || header.length > 1024) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { apiKey: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

/** Resolves the calling application (res.locals.app) or answers the route's 401 body. */
export function basicAuth(services: Services, route: ClientRoute): RequestHandler {
  return async (req, res, next) => {
    const creds = parseBasicAuth(req.headers.authorization);
    const app = creds ? await services.credentials.authenticate(creds.apiKey, creds.secret) : null;
    if (!app) return next(unauthorizedFor[route]());
    res.locals.app = app;
    next();
  };
}
