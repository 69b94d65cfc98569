/**
 * A stable address for a server that a test kills and starts again. A restart on the server's own
 * port binds that port again after it was free for a while, and in a busy suite another process
 * can take it in between (an outgoing connection's local port, a listener on port 0): the restart
 * then fails, or clients meet a stranger on that port. So the server listens on port 0 every time,
 * and clients talk to a relay that holds its own port for the whole test and is pointed at each new
 * server port (`up`).
 *
 * What clients see is what they would see of the server itself: a kill cuts their connections
 * (the relay passes a FIN on as a FIN, an error as a reset), and while the server is down (`down`,
 * called before the kill) a new connection is refused — the relay keeps its port bound but stops
 * listening. A refused connection matters: a client that could connect would send its commands,
 * and could no longer know they were never applied.
 *
 * The relay is a process of its own (relay.py: Node cannot stop listening while keeping the port),
 * so the load a test generates does not delay the traffic it relays.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { terminate } from './service-process.js';

const READY_MS = 30_000;

export class Relay {
  /** Callers of `command`, in order: the relay answers its commands in the order it reads them. */
  private readonly waiting: ((line: string) => void)[] = [];

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    /** The relay's own port: the address clients are given. */
    readonly port: number,
  ) {}

  /** Starts a relay to 127.0.0.1:`target`; resolves with it once it listens. */
  static async start(target: number): Promise<Relay> {
    const child = spawn('python3', [resolve(import.meta.dirname, 'relay.py'), String(target)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    const lines = createInterface({ input: child.stdout });
    try {
      const port = await new Promise<number>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`the relay did not listen within ${READY_MS / 1000} s: ${stderr}`)), READY_MS);
        lines.once('line', (line) => {
          clearTimeout(timer);
          const m = /^port (\d+)$/.exec(line);
          if (m) ok(Number(m[1]));
          else fail(new Error(`the relay said ${JSON.stringify(line)}: ${stderr}`));
        });
        child.once('error', (err) => fail(new Error(`python3 (the relay) did not start: ${err.message}`)));
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          fail(new Error(`the relay exited with ${code ?? signal} before it listened: ${stderr}`));
        });
      });
      const relay = new Relay(child, port);
      lines.on('line', (line) => relay.reply(line));
      return relay;
    } catch (err) {
      await terminate(child, 'SIGKILL', 1000);
      throw err;
    }
  }

  private reply(line: string): void {
    this.waiting.shift()?.(line);
  }

  private command(line: string): Promise<void> {
    return new Promise((ok, fail) => {
      this.waiting.push((answer) => (answer === line ? ok() : fail(new Error(`the relay answered ${JSON.stringify(answer)} to ${line}`))));
      this.child.stdin.write(`${line}\n`);
    });
  }

  /** Refuses new connections from now on (existing ones stay: the server's fate decides theirs). */
  down(): Promise<void> {
    return this.command('down');
  }

  /** Joins new connections to 127.0.0.1:`target`, and accepts them again if down. */
  up(target: number): Promise<void> {
    return this.command(`up ${target}`);
  }

  /**
   * Every connection open now stops passing bytes, both ways, and stays open: no FIN, no reset —
   * a dead path through a middlebox, which the client only notices by its own timeout. Bytes sent
   * meanwhile are held, not lost. New connections pass (a fresh path).
   */
  blackhole(): Promise<void> {
    return this.command('blackhole');
  }

  /** The blackholed connections pass bytes again, the held ones first. */
  heal(): Promise<void> {
    return this.command('heal');
  }

  async stop(): Promise<void> {
    this.child.stdin.end();
    await terminate(this.child, 'SIGTERM', 5000);
  }
}
