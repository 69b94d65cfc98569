/**
 * Embedded servers for `npm run dev` and `npm test` when MONGODB_URI / REDIS_URL are unset:
 * mongodb-memory-server (downloads mongod on first use; needs internet) and a `redis-server`
 * found on PATH, each on a free port in a temporary directory. Not used in production.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EmbeddedServers {
  mongodbUri: string;
  redisUrl: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function startRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'coupons-redis-'));
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`redis-server not found on PATH (${err.message}); set REDIS_URL`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts what is missing; returns the URIs to use (given ones are passed through). */
export async function startEmbeddedServers(given: { mongodbUri?: string; redisUrl?: string }): Promise<EmbeddedServers> {
  const stops: (() => Promise<void>)[] = [];
  let mongodbUri = given.mongodbUri;
  if (!mongodbUri) {
    const { MongoMemoryServer } = await import('mongodb-memory-server');
    const mongod = await MongoMemoryServer.create();
    mongodbUri = mongod.getUri();
    stops.push(async () => {
      await mongod.stop();
    });
  }
  let redisUrl = given.redisUrl;
  if (!redisUrl) {
    const redis = await startRedis();
    redisUrl = redis.url;
    stops.push(redis.stop);
  }
  return { mongodbUri, redisUrl, stop: async () => void (await Promise.all(stops.map((s) => s()))) };
}

/** `mongodb://host[,host]/<name>?opts` for the given database name. */
export function withDbName(uri: string, name: string): string {
  const [base, query] = uri.split('?') as [string, string | undefined];
  const scheme = base.indexOf('://') + 3;
  const slash = base.indexOf('/', scheme);
  const hosts = slash < 0 ? base : base.slice(0, slash);
  return `${hosts}/${name}${query ? `?${query}` : ''}`;
}
