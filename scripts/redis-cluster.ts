/**
 * A private Redis Cluster on loopback ports, for the cluster test suite (test/cluster/) and the
 * cluster benchmark (`npm run bench -- cluster`): `primaries` primaries with `replicasPerPrimary`
 * replicas each, `redis-server --cluster-enabled yes` per node in a temporary directory, then
 * `redis-cli --cluster create … --cluster-replicas N --cluster-yes`. Every port (client and
 * cluster bus) is chosen free; every process is stopped by its own pid in `stop()`, which also
 * runs when the start fails half-way. Not used in production (docs/scaling.md).
 *
 * `npx tsx scripts/redis-cluster.ts` starts one by hand, prints its REDIS_URL and stops it on
 * Ctrl-C.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { onFreePort, PortTaken, REDIS_PORT_TAKEN } from './embedded-servers.js';

const execFileP = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CRC16-XMODEM, the checksum Redis Cluster hashes keys with. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The cluster slot of a key (0-16383), as Redis computes it: only the part between the first `{`
 * and the next `}` is hashed when that part is not empty (the hash tag), so every key of
 * `coupons:ops-{07}:…` lands in the slot of `07`.
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  return crc16(Buffer.from(key, 'utf8')) % 16384;
}

export interface ClusterNode {
  port: number;
  /** The cluster bus port (chosen free too: not the default port + 10000). */
  busPort: number;
  child: ChildProcess;
  /** False once the node was killed or stopped. */
  alive: boolean;
  /** Its log file (stdout of redis-server). */
  logFile: string;
}

export interface ClusterOptions {
  /** Default 3. */
  primaries?: number;
  /** Default 1. */
  replicasPerPrimary?: number;
  /**
   * `cluster-node-timeout`: how long a primary may be unreachable before its replica takes over.
   * Default 2000 ms (Redis: 15000 ms).
   */
  nodeTimeoutMs?: number;
  /** Extra `redis-server` arguments for every node. */
  args?: string[];
}

/** Error counts by error prefix (`INFO errorstats`: `errorstat_CROSSSLOT:count=2` → `{CROSSSLOT: 2}`). */
export type ErrorStats = Record<string, number>;

export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:p1,…` naming every primary as a seed (the service's REDIS_URL). */
  url: string;
  dir: string;
  nodes: ClusterNode[];
  /** A plain connection to one node (admin commands); the caller disconnects it. */
  connect(node: ClusterNode): Redis;
  /** The slot of a key, as the cluster computes it (`CLUSTER KEYSLOT`). */
  keyslot(key: string): Promise<number>;
  /** The node serving `slot` as primary now, as a live node sees it. */
  primaryOf(slot: number): Promise<ClusterNode>;
  /** The current primaries and the slot ranges each serves. */
  primaries(): Promise<{ node: ClusterNode; ranges: [number, number][] }[]>;
  /** SIGKILL one node (a crash); resolves once it exited. Its error counts are read just before. */
  kill(node: ClusterNode): Promise<void>;
  /**
   * Waits until every live node reports `cluster_state:ok` with all 16384 slots served by live
   * primaries, and every live replica's link to its primary is up.
   */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Errors answered so far, summed over every node (killed ones as read just before the kill). */
  errorStats(): Promise<ErrorStats>;
  /** Forgets the error counts so far (`CONFIG RESETSTAT` on every live node). */
  resetErrorStats(): Promise<void>;
  /** Stops every node by its pid (SIGTERM, then SIGKILL after 5 s) and removes the directory (unless `keepDir`: logs to read). */
  stop(opts?: { keepDir?: boolean }): Promise<void>;
}

const parseInfo = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((l) => l.includes(':') && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]),
  );

/** `errorstat_CROSSSLOT:count=3` lines of `INFO errorstats`. */
export function parseErrorStats(text: string): ErrorStats {
  const out: ErrorStats = {};
  for (const [k, v] of Object.entries(parseInfo(text))) {
    const m = /^errorstat_(.+)$/.exec(k);
    const n = /count=(\d+)/.exec(v);
    if (m && n) out[m[1]!] = Number(n[1]);
  }
  return out;
}

const addStats = (into: ErrorStats, from: ErrorStats) => {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
};

/**
 * Every node this process started and that still runs. When the process exits — a test process
 * ends with `process.exit`, a hook that timed out mid-start never reaches its stop — they are
 * killed: a node left behind keeps gossiping on its cluster bus and takes CPU from every later test.
 */
const liveNodes = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of liveNodes) child.kill('SIGKILL');
});

function startNode(dir: string, port: number, busPort: number, opts: Required<ClusterOptions>): Promise<ClusterNode> {
  const logFile = join(dir, `node-${port}.log`);
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--cluster-port',
      String(busPort),
      '--bind',
      '127.0.0.1',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      String(opts.nodeTimeoutMs),
      // Slots of a healthy primary keep serving while another primary fails over.
      '--cluster-require-full-coverage',
      'no',
      // A replica may always take over, however long its link was down.
      '--cluster-replica-validity-factor',
      '0',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...opts.args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  liveNodes.add(child);
  child.once('exit', () => liveNodes.delete(child));
  const log = createWriteStream(logFile);
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const node: ClusterNode = { port, busPort, child, alive: true, logFile };
  child.once('exit', () => (node.alive = false));
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4096);
      if (seen.includes('Ready to accept connections')) {
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        resolve(node);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (err) => reject(new Error(`redis-server could not start (${err.message}): is it on PATH?`)));
    child.once('exit', (code) => {
      const why = `redis-server on port ${port} exited with ${code} (log: ${logFile}): ${seen.slice(-300)}`;
      reject(REDIS_PORT_TAKEN.test(seen) ? new PortTaken(why) : new Error(why));
    });
  });
}

async function stopNode(node: ClusterNode, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = new Promise<void>((r) => node.child.once('exit', () => r()));
  node.child.kill(signal);
  const timer = setTimeout(() => node.child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Starts the cluster; on any failure stops what it started and rethrows. */
export async function startRedisCluster(options: ClusterOptions = {}): Promise<RedisCluster> {
  const opts: Required<ClusterOptions> = { primaries: 3, replicasPerPrimary: 1, nodeTimeoutMs: 2000, args: [], ...options };
  const count = opts.primaries * (1 + opts.replicasPerPrimary);
  const dir = mkdtempSync(join(tmpdir(), 'coupons-redis-cluster-'));
  const nodes: ClusterNode[] = [];
  const deadStats: ErrorStats = {};
  const connect = (node: ClusterNode) =>
    new Redis({ host: '127.0.0.1', port: node.port, lazyConnect: false, maxRetriesPerRequest: 1, retryStrategy: () => null });
  const onNode = async <T>(node: ClusterNode, fn: (r: Redis) => Promise<T>): Promise<T> => {
    const r = connect(node);
    r.on('error', () => undefined);
    try {
      return await fn(r);
    } finally {
      r.disconnect();
    }
  };
  const live = () => nodes.filter((n) => n.alive);
  const byPort = (port: number) => nodes.find((n) => n.port === port);

  const stop = async (opts: { keepDir?: boolean } = {}) => {
    await Promise.all(nodes.map((n) => stopNode(n)));
    if (!opts.keepDir) rmSync(dir, { recursive: true, force: true });
  };

  /** `CLUSTER SLOTS` as a live node sees it: [from, to, primary port]. */
  const slotTable = async (): Promise<[number, number, number][]> => {
    for (const node of live()) {
      try {
        const slots = (await onNode(node, (r) => r.call('CLUSTER', 'SLOTS'))) as [number, number, [string, number]][];
        return slots.map(([from, to, primary]) => [from, to, Number(primary[1])]);
      } catch {
        /* try the next node */
      }
    }
    throw new Error('no live cluster node answers CLUSTER SLOTS');
  };

  const cluster: RedisCluster = {
    url: '',
    dir,
    nodes,
    connect,
    keyslot: async (key) => Number(await onNode(live()[0]!, (r) => r.call('CLUSTER', 'KEYSLOT', key))),
    async primaryOf(slot) {
      const row = (await slotTable()).find(([from, to]) => slot >= from && slot <= to);
      const node = row && byPort(row[2]);
      if (!node) throw new Error(`no primary serves slot ${slot}`);
      return node;
    },
    async primaries() {
      const out = new Map<number, [number, number][]>();
      for (const [from, to, port] of await slotTable()) out.set(port, [...(out.get(port) ?? []), [from, to]]);
      return [...out].map(([port, ranges]) => ({ node: byPort(port)!, ranges: ranges.sort((a, b) => a[0] - b[0]) }));
    },
    async kill(node) {
      const stats = await onNode(node, (r) => r.info('errorstats')).catch(() => '');
      addStats(deadStats, parseErrorStats(stats));
      await stopNode(node, 'SIGKILL');
    },
    async waitHealthy(timeoutMs = 30_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const states = await Promise.all(
          live().map((n) =>
            onNode(n, async (r) => {
              const info = parseInfo(String(await r.call('CLUSTER', 'INFO')));
              const repl = parseInfo(await r.info('replication'));
              const ok =
                info.cluster_state === 'ok' &&
                info.cluster_slots_ok === '16384' &&
                (repl.role !== 'slave' || repl.master_link_status === 'up');
              return ok
                ? ''
                : `${n.port}: state ${info.cluster_state}, slots ok ${info.cluster_slots_ok}, link ${repl.master_link_status ?? '-'}`;
            }).catch((err: Error) => `${n.port}: ${err.message}`),
          ),
        );
        let last = states.filter(Boolean).join('; ');
        if (!last) {
          // Every slot's primary must be one of the live nodes (a killed one may still be listed
          // until it is flagged as failed).
          const table = await slotTable();
          const dead = table.filter(([, , port]) => !byPort(port)?.alive);
          if (dead.length === 0) return;
          last = `slots still on dead node(s) ${[...new Set(dead.map((d) => d[2]))].join(', ')}`;
        }
        if (Date.now() > end) throw new Error(`redis cluster not healthy after ${timeoutMs} ms: ${last}`);
        await sleep(200);
      }
    },
    async errorStats() {
      const total: ErrorStats = { ...deadStats };
      for (const n of live()) addStats(total, parseErrorStats(await onNode(n, (r) => r.info('errorstats'))));
      return total;
    },
    async resetErrorStats() {
      for (const k of Object.keys(deadStats)) delete deadStats[k];
      await Promise.all(live().map((n) => onNode(n, (r) => r.config('RESETSTAT'))));
    },
    stop,
  };

  try {
    // Each node on ports of its own (client and cluster bus), started again elsewhere if taken meanwhile.
    for (let i = 0; i < count; i++) nodes.push(await onFreePort((port, bus) => startNode(dir, port!, bus!, opts), 2));
    await execFileP(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas',
        String(opts.replicasPerPrimary),
        '--cluster-yes',
      ],
      { timeout: 60_000 },
    );
    await cluster.waitHealthy(60_000);
    const primaries = await cluster.primaries();
    cluster.url = `redis+cluster://${primaries.map((p) => `127.0.0.1:${p.node.port}`).join(',')}`;
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}

// `npx tsx scripts/redis-cluster.ts`: a cluster to try things by hand.
if (process.argv[1]?.endsWith('redis-cluster.ts')) {
  const cluster = await startRedisCluster();
  process.stdout.write(`REDIS_URL=${cluster.url}\n(nodes in ${cluster.dir}; Ctrl-C stops them)\n`);
  const bye = () => void cluster.stop().then(() => process.exit(0));
  process.on('SIGINT', bye);
  process.on('SIGTERM', bye);
}
