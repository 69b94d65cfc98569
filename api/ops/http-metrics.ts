/**
 * Requests in flight, and request duration by method, route TEMPLATE and status. The raw path is never a label (it holds
 * customer ids: unbounded cardinality and personal data); unknown routes are `unmatched`.
 */
import type { Express, RequestHandler } from 'express';
import type { Metrics } from '../../shared/ops/metrics.js';
import { routeTemplateOf } from './route-template.js';

/** Installed before the routes; `app` is read when a request ends, once every route exists. */
export function httpMetrics(metrics: Metrics, app: Express): RequestHandler {
  return (req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    metrics.httpInFlight.inc();
    res.once('close', () => metrics.httpInFlight.dec()); // answered, or the connection went
    res.once('finish', () => {
      // A matched route names itself; a request refused before routing (body parser, auth
      // middleware) is looked up among the registered routes; a 404 from the fallback is unmatched.
      const route = req.route?.path
        ? `${req.baseUrl}${String(req.route.path)}`
        : (res.statusCode !== 404 && routeTemplateOf(app.router, req.method, req.originalUrl.split('?')[0]!)) || 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}
