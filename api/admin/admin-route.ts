/**
 * One row of the admin API's route table (api/admin/routes/*.routes.ts): its method and path, what
 * it does for the role check, the audit record of a change, the status it answers, and the handler
 * that calls one admin use case. admin.router.ts builds the router from the rows; everything a row
 * needs is stated in it — nothing is worked out from the path.
 */
import { CsvAnswer } from '../../shared/usecases/admin/results.usecase.js';
import type { Request, RequestHandler, Response } from 'express';
import type { StampedModel } from '../../shared/data/audit-entry.repository.js';
import { may, refusalOf, type Actor, type AdminAction } from '../../shared/domain/roles.js';
import type { JobGateway } from '../../shared/queue/gateway.js';
import type { WebhookQueue } from '../../shared/queue/webhook-queue.js';
import type { BacktestQueue } from '../../shared/queue/backtest-queue.js';
import type { Services } from '../../shared/services.js';
import { adminForbidden } from '../../shared/admin-errors.js';
import { auditedChange, type AuditedChange, type ChangeState, type TargetType } from '../../shared/usecases/admin/audit.usecase.js';
import { actorOf } from './admin-auth.js';

/** What the admin routes are given: the services, and the queues some routes put work on. */
export interface AdminDeps {
  services: Services;
  /** The webhook queue (redelivery, ping); without it those routes answer 503. */
  webhooks?: WebhookQueue;
  /** The partition queues (points adjustments); without them that route answers 503. */
  jobs?: JobGateway;
  /** The backtest queue; without it a backtest cannot be asked (503). */
  backtests?: BacktestQueue;
}

/** One request to a route, as its handler sees it. */
export interface AdminCall extends AdminDeps {
  req: Request;
  res: Response;
  /** Who calls (api/admin/admin-auth.ts), allowed to do the row's `action`. */
  actor: Actor;
  /** A route parameter's value, as the path gives it. */
  param(name: string): string;
}

/**
 * What names the target of a change: a route parameter (`{ param: 'campaign' }`; unless `many`,
 * the log keeps the target's id in the service, read before the change); `'created'`: the change
 * creates it (the entry finds it by the stamp of its writes); `'none'`: a change of many (`many`).
 */
export type AuditTarget = { param: string } | 'created' | 'none';

/** What a changing route records in the audit log (docs/admin-api.md#audit-log): `<type>.<verb>` and its target. */
export interface RouteAudit<Target = AuditTarget> {
  type: TargetType;
  verb: string;
  /** What names the target; `'handler'`: a custom handler names it when it runs the change. */
  target: Target;
  /** A change of many documents of this model: the entry records the request (secrets redacted), not a diff, and looks for its stamps there. */
  many?: StampedModel;
}

interface RouteShape {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Express's path, under /admin. */
  path: string;
  /** What the route does (shared/domain/roles.ts): a role that may not is refused with 403 before anything is read. */
  action: AdminAction;
  /** The status of a successful answer, whose body is what the handler returns. */
  status: number;
}

/** A route whose handler is the change (or the read): the row's audit record, if any, is written around it. */
export interface PlainRoute extends RouteShape {
  /** Null for reads, and for POSTs that change nothing (a dry run). */
  audit: RouteAudit | null;
  handler: (call: AdminCall) => Promise<unknown>;
}

/**
 * What a custom handler runs its change with: the row's audit record, with the target id and the
 * request recorded as the handler names them; `stateOf` says how a change that answered came out.
 */
export type RunAudited = <T>(
  named: { id: string; body: unknown },
  change: () => Promise<T>,
  stateOf?: (result: T) => ChangeState,
) => Promise<T>;

/**
 * A route whose handler does work of its own before its audited change, names the target itself,
 * and answers the request itself (a queued operation: routes/queued-operation.ts).
 */
export interface CustomRoute extends RouteShape {
  audit: RouteAudit<'handler'>;
  custom: (call: AdminCall, audited: RunAudited) => Promise<void>;
}

export type AdminRoute = PlainRoute | CustomRoute;

/**
 * The audit record of one call of a route (`named`: the target and request a custom handler
 * names), filed under the application of the route's `:app`, if it has one.
 */
function auditRecordOf(audit: RouteAudit<AuditTarget | 'handler'>, call: AdminCall, named?: { id: string; body: unknown }): AuditedChange {
  const { req } = call;
  const id = typeof audit.target === 'object' ? call.param(audit.target.param) : (named?.id ?? null);
  return {
    type: audit.type,
    verb: audit.verb,
    id,
    application: req.params.app ? String(req.params.app) : null,
    ...(audit.many ? { many: audit.many, body: named ? named.body : req.body } : {}),
    requestId: String(req.id),
  };
}

/** What a row answers: its handler's result, the handler run as the row's audited change when it is one. */
function run(deps: AdminDeps, route: PlainRoute, call: AdminCall): Promise<unknown> {
  if (!route.audit) return route.handler(call);
  return auditedChange(deps.services, call.actor, auditRecordOf(route.audit, call), () => route.handler(call));
}

/** The Express handler of a row: the role first (a refusal before anything is read), then the row's handler, then the answer. */
export function handlerOf(deps: AdminDeps, route: AdminRoute): RequestHandler {
  return async (req, res) => {
    const actor = actorOf(res);
    if (!may(actor, route.action)) throw adminForbidden(refusalOf(actor, route.action));
    const call: AdminCall = { ...deps, req, res, actor, param: (name) => String(req.params[name]) };
    if ('custom' in route)
      return route.custom(call, (named, change, stateOf) =>
        auditedChange(deps.services, actor, auditRecordOf(route.audit, call, named), change, stateOf),
      );
    const body = await run(deps, route, call);
    // A CSV export (docs/results.md): sent as a file to download.
    if (body instanceof CsvAnswer) res.status(route.status).type('text/csv; charset=utf-8').attachment(body.filename).send(body.text);
    else res.status(route.status).json(body);
  };
}
