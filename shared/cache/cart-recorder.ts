/**
 * Recorded carts (docs/results.md "Recorded carts"): for an application that records them, the
 * carts its list, validate and redeem requests saw, appended by each process every CART_RECORD_MS
 * in one unordered insert — a request writes nothing of its own. A process killed loses what it had
 * not written yet (at most that long's); a redeem job run twice records its cart once (its id is
 * derived from what it decided). Nothing is recorded for an application that has not opted in.
 */
import { Types } from 'mongoose';
import type { ApplicationRecord } from '../data/application.repository.js';
import type { CartToRecord, recordedCartRepository } from '../data/recorded-cart.repository.js';
import type { Logger } from '../logger.js';
import { BatchedWriter } from './batched-writer.js';

/** Past this many pending carts (a database away for long), new ones are dropped and counted as dropped. */
const MAX_PENDING = 50_000;
const DAY_MS = 86_400_000;

/** A cart as a caller gives it: the recorder adds the application, the id (when none) and the expiry. */
export type CartSeen = Omit<CartToRecord, 'applicationId' | 'expiresAt' | 'id'> & { id?: string };

/**
 * The id of a cart not decided by a job (a list's, a validate's, a redeem refused by the API
 * itself): unique, in the order seen within a process, after the ids of redeems accepted.
 */
export const seenCartId = (kind: CartToRecord['kind']) => `${kind.toUpperCase()}${new Types.ObjectId().toHexString()}`;

export class CartRecorder extends BatchedWriter {
  private pending: CartToRecord[] = [];
  /** Carts dropped: too many pending, or refused by the database. */
  dropped = 0;

  constructor(
    private readonly repos: { recordedCarts: ReturnType<typeof recordedCartRepository> },
    everyMs: number,
    private readonly logger?: Logger,
  ) {
    super(everyMs);
  }

  /** Records `cart` for `app`, when it records its carts. */
  record(app: Pick<ApplicationRecord, 'id' | 'cartRecording'>, cart: CartSeen): void {
    if (!app.cartRecording.enabled) return;
    if (this.pending.length >= MAX_PENDING) {
      this.dropped++;
      return;
    }
    this.pending.push({
      ...cart,
      id: cart.id ?? seenCartId(cart.kind),
      applicationId: app.id,
      expiresAt: new Date(cart.at.getTime() + app.cartRecording.retentionDays * DAY_MS),
    });
    this.schedule();
  }

  /** Writes what is pending; what fails to be written is kept for the next time. */
  protected async write(): Promise<void> {
    const rows = this.pending;
    this.pending = [];
    if (rows.length === 0) return;
    try {
      const refused = await this.repos.recordedCarts.append(rows);
      // A cart the database will never take (a field name it refuses in the order sent) is dropped, not retried.
      if (refused.length > 0) {
        this.dropped += refused.length;
        this.logger?.warn({ refused: refused.length, first: refused[0]!.message }, 'recorded carts: some refused by the database, dropped');
      }
    } catch (err) {
      this.pending = rows.concat(this.pending).slice(0, MAX_PENDING);
      this.logger?.warn({ err }, 'recorded carts: not written yet, kept for the next try');
      this.schedule();
    }
  }
}
