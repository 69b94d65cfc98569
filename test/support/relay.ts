/**
 * A stable address for a server that a test kills and starts again. A restart on the server's own
 * port binds that port again after it was free for a while, and in a busy suite another process
 * can take it in between (an outgoing connection's local port, a listener on port 0): the restart
 * then fails, or clients meet a stranger on that port. So the server listens on port 0 every time,
 * and clients talk to a relay that keeps its own port (port 0, read once) for the whole test and
 * is pointed at each new server port (`retarget`).
 *
 * The relay is a process of its own (relay-process.ts), not this test process's event loop, so
 * that the load a test generates does not delay the traffic it relays. A kill of the server behind
 * it cuts the clients' connections; while the server is down, connections are accepted and reset
 * (where a direct connection would be refused): both are network errors to a client.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { terminate } from './service-process.js';

const READY_MS = 60_000;

export class Relay {
  private constructor(
    private readonly child: ChildProcess,
    /** The relay's own port: the address clients are given. */
    readonly port: number,
  ) {}

  /** Starts a relay to 127.0.0.1:`target`; resolves with it once it listens. */
  static async start(target: number): Promise<Relay> {
    const child = fork(resolve(import.meta.dirname, 'relay-process.ts'), [String(target)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      const port = await new Promise<number>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`the relay did not listen within ${READY_MS / 1000} s`)), READY_MS);
        child.once('message', (m: { port?: number }) => {
          clearTimeout(timer);
          if (typeof m.port === 'number') ok(m.port);
          else fail(new Error(`the relay said ${JSON.stringify(m)}`));
        });
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          fail(new Error(`the relay exited with ${code ?? signal} before it listened`));
        });
      });
      return new Relay(child, port);
    } catch (err) {
      await terminate(child, 'SIGKILL', 1000);
      throw err;
    }
  }

  /** Points new connections at 127.0.0.1:`target`; resolves once the relay has taken it. */
  retarget(target: number): Promise<void> {
    return new Promise((ok, fail) => {
      const onMessage = (m: { target?: number }) => {
        if (m.target !== target) return;
        this.child.off('message', onMessage);
        ok();
      };
      this.child.on('message', onMessage);
      this.child.send({ target }, (err) => err && fail(err));
    });
  }

  async stop(): Promise<void> {
    await terminate(this.child, 'SIGTERM', 5000);
  }
}
