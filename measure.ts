import { Redis } from 'ioredis';
import { parseConfig } from './shared/config.js';
import { JobGateway } from './shared/queue/gateway.js';
import { WorkerPool } from './worker/worker-pool.js';
import { createLogger } from './shared/logger.js';
import { JOB } from './shared/queue/names.js';
const url = process.env.RURL!;
const config = parseConfig({
  NODE_ENV: 'test',
  REDIS_URL: url,
  MONGODB_URI: 'mongodb://x/y',
  QUEUE_PARTITIONS: '16',
  LOG_LEVEL: 'silent',
  QUEUE_PREFIX: 'm' + Date.now(),
});
const logger = createLogger(config, 'm');
const jobs = new JobGateway(config);
await jobs.start();
const pool = new WorkerPool(config, logger, async () => ({ ok: true, value: null }));
await pool.start();
const r = new Redis(url);
const stats = async () => {
  const info = await r.info('commandstats');
  const m = new Map<string, number>();
  for (const l of info.split('\n')) {
    const x = /^cmdstat_(\w+):calls=(\d+)/.exec(l);
    if (x) m.set(x[1]!, Number(x[2]));
  }
  return m;
};
for (let i = 0; i < 50; i++) await jobs.run(JOB.noop, `c${i}`, {});
const N = Number(process.env.N ?? 2000);
const mem0 = Number(/used_memory:(\d+)/.exec(await r.info('memory'))![1]);
const before = await stats();
const t = Date.now();
const conc = 64;
let next = 0;
await Promise.all(
  Array.from({ length: conc }, async () => {
    while (next < N) {
      const i = next++;
      await jobs.run(JOB.noop, `cust${i}`, { order: 'x'.repeat(Number(process.env.PAYLOAD ?? 0)) } as never);
    }
  }),
);
const ms = Date.now() - t;
const after = await stats();
const mem1 = Number(/used_memory:(\d+)/.exec(await r.info('memory'))![1]);
const diff: Record<string, number> = {};
let total = 0;
for (const [k, v] of after) {
  const d = v - (before.get(k) ?? 0);
  if (d > 0 && k !== 'info') {
    diff[k] = +(d / N).toFixed(2);
    total += d;
  }
}
console.log('jobs', N, 'in', ms, 'ms =', Math.round((N / ms) * 1000), '/s; commands per job', (total / N).toFixed(2), diff);
console.log('memory per job', Math.round((mem1 - mem0) / N), 'bytes');
await pool.close();
await jobs.close();
r.disconnect();
process.exit(0);
