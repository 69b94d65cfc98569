/**
 * Bull Board at `/admin/queues`: every partition queue and the webhook queue, READ-ONLY — these
 * queues move money and points, and a retry or promote from the UI must never re-run a debit (nor
 * bypass a delivery's schedule: redeliver through the admin API). Admin token required
 * (Bearer, or Basic with the token as password so a browser can log in through its prompt); off,
 * a plain 404 like any unknown route, when no admin token is configured.
 */
import { adminTokenInvalid } from '../../shared/admin-errors.js';
import { sendRefusal } from '../answers.js';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import { Router, type Express, type Request } from 'express';
import { notFoundRoute } from '../middleware/error-handler.js';
import { presentsToken } from '../../shared/ops/token.js';

/** Where app.ts mounts the board (before the `/admin` router, which would answer 401/404 first). */
export const BULL_BOARD_PATH = '/admin/queues';

/** The board's router over `queues`, to mount at {@link BULL_BOARD_PATH}. */
export function bullBoard(
  queues: readonly Queue[],
  adminToken: string | undefined,
  /** An operator's browser session that may see the board (the console links here). */
  sessionAllowed: (req: Request) => Promise<boolean> = async () => false,
): Router {
  const r = Router();
  if (!adminToken) {
    r.use(notFoundRoute);
    return r;
  }
  const adapter = new ExpressAdapter();
  adapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: true })),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'Coupon queues' } },
  });
  r.use(async (req, res, next) => {
    if (presentsToken(req.headers.authorization, adminToken)) return next();
    try {
      if (await sessionAllowed(req)) return next();
    } catch (err) {
      return next(err);
    }
    // The challenge makes a browser show its login prompt (any user name, the token as password).
    res.set('WWW-Authenticate', 'Basic realm="coupons-admin"');
    sendRefusal(req, res, adminTokenInvalid());
  });
  const board = adapter.getRouter() as Express;
  // The board is an Express app of its own: keep the parent's choice of not naming the framework.
  board.disable('x-powered-by');
  r.use(board);
  return r;
}
