/**
 * A fix for a hang in the MongoDB driver (mongodb 7.x, the one mongoose uses), applied once when
 * the first database connection is made (db.ts).
 *
 * The defect: a command larger than the socket's buffer (`socket.write` returns false — a batch of
 * writes, or any command while the server reads slowly) makes the driver wait for the socket's
 * `drain` event before it starts reading the reply (`Connection.writeCommand`). That wait ends on
 * `drain` or on `error` only. When the connection closes without an `error` event while the driver
 * waits, neither ever comes, and the operation never settles — no error, no timeout, no retry:
 *  - the server closes the connection (a FIN: a server killed or shut down) while the rest of the
 *    command is still being flushed: Node ends the socket, flushes, and emits `finish` and `close`,
 *    never `drain` (a stream that is ending does not emit it);
 *  - the socket times out (`socketTimeoutMS`: the server stopped reading, e.g. frozen), or the pool
 *    interrupts the connections in use after a failed heartbeat: the driver destroys the socket
 *    itself, which emits `close` only.
 * Unfixed, this holds a worker's job — and with it its partition, every customer behind it — for good.
 *
 * The fix: when a connection's socket closes, its pending `drain` wait is released. The driver
 * then goes on exactly as for any connection lost mid-command: `throwIfAborted` throws the error it
 * recorded when the socket closed (a MongoNetworkError or MongoNetworkTimeoutError), which callers
 * treat as transient (shared/data/transient.ts). Nothing else changes: a socket that closes with
 * no command waiting has no `drain` listener, and the extra `drain` reaches no one.
 *
 * Tested by test/data/driver-fixes.spec.ts (a command stuck behind a frozen test database settles
 * with a network timeout; without this fix it never settles). To drop once the driver listens for
 * `close` while it waits for `drain`.
 */
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

interface DriverConnection {
  socket: Socket;
  writeCommand(...args: unknown[]): Promise<unknown>;
}

/** Sockets already watched (one `close` listener each, added on their first command). */
const watched = new WeakSet<Socket>();
let applied = false;

/** Patches the driver mongoose loads (its own copy, not a top-level `mongodb` another package may bring). */
export function applyDriverFixes(): void {
  if (applied) return;
  const fromMongoose = createRequire(createRequire(import.meta.url).resolve('mongoose'));
  const { Connection } = fromMongoose('mongodb/lib/cmap/connection.js') as { Connection?: { prototype: DriverConnection } };
  const original = Connection?.prototype.writeCommand;
  // A driver whose internals moved: say so at start-up rather than run unprotected in silence.
  if (typeof original !== 'function')
    throw new Error('driver-fixes: mongodb Connection.writeCommand not found (driver changed; review shared/data/driver-fixes.ts)');
  Connection!.prototype.writeCommand = function (this: DriverConnection, ...args: unknown[]) {
    const socket = this.socket;
    if (!watched.has(socket)) {
      watched.add(socket);
      // Registered after the driver's own `close` listener (its constructor's): the connection's
      // error is recorded by the time the released wait looks at it.
      socket.once('close', () => {
        if (socket.listenerCount('drain') > 0) socket.emit('drain');
      });
    }
    return original.apply(this, args);
  };
  applied = true;
}
