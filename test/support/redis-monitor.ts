/**
 * Redis's MONITOR read over a socket of its own: each command Redis runs, by name, with where it
 * came from (`lua` for commands a script ran). Not ioredis's `monitor()`: it treats the connection
 * as monitoring only once MONITOR's OK has been handled, so a command line that arrives in the same
 * read as the OK meets an empty command queue and ioredis throws "Command queue state error"
 * (redis/ioredis#1981).
 */
import { connect } from 'node:net';

export interface RedisMonitor {
  stop(): void;
}

/** Starts monitoring `url`'s Redis; resolves once Redis has said OK (every later command is seen). */
export function monitorRedis(url: string, onCommand: (name: string, source: string) => void): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.setEncoding('utf8');
  let buffer = '';
  let started = false;
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!started) {
          if (line !== '+OK') return reject(new Error(`MONITOR answered ${line}`));
          started = true;
          resolve({ stop: () => socket.destroy() });
          continue;
        }
        // +1795714474.497948 [0 127.0.0.1:58260] "bzpopmin" "key" "5"   ([0 lua] inside a script)
        const m = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]*)"/.exec(line);
        if (m) onCommand(m[2]!.toLowerCase(), m[1] === 'lua' ? 'lua' : m[1]!);
      }
    });
    socket.write('MONITOR\r\n');
  });
}
