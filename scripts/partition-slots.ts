/**
 * `npx tsx scripts/partition-slots.ts [partitions]`: the Redis Cluster slot of every partition
 * queue (`ops-{NN}`, default QUEUE_PARTITIONS) and of the webhook queue, and — when REDIS_URL names
 * a cluster (`redis+cluster://…`) — the primary serving each now and how many queues each serves
 * (docs/scaling.md). Without a cluster it prints where they would land with `redis-cli --cluster
 * create`'s even split over 3 primaries.
 */
import { Cluster } from 'ioredis';
import { loadConfig } from '../shared/config.js';
import { WEBHOOK_QUEUE, partitionQueueName } from '../shared/queue/names.js';
import { redisConnection } from '../shared/queue/redis.js';
import { clusterSeeds } from '../shared/redis-url.js';
import { keySlot } from './redis-cluster.js';

/** `redis-cli --cluster create` with 3 primaries: 0-5460, 5461-10922, 10923-16383. */
const EVEN_SPLIT: [number, number, string][] = [
  [0, 5460, 'primary 1 (0-5460)'],
  [5461, 10922, 'primary 2 (5461-10922)'],
  [10923, 16383, 'primary 3 (10923-16383)'],
];

async function main() {
  const config = loadConfig();
  const partitions = Number(process.argv[2] ?? config.queuePartitions);
  let owners: [number, number, string][] = EVEN_SPLIT;
  let source = "redis-cli --cluster create's even split over 3 primaries";
  if (config.redisUrl && clusterSeeds(config.redisUrl)) {
    const cluster = redisConnection(config.redisUrl) as Cluster;
    try {
      const slots = (await cluster.cluster('SLOTS')) as unknown as [number, number, [string, number]][];
      owners = slots.map(([from, to, [host, port]]) => [from, to, `${host}:${port}`]);
      source = 'CLUSTER SLOTS of REDIS_URL';
    } finally {
      cluster.disconnect();
    }
  }
  const queues = [...Array.from({ length: partitions }, (_, p) => partitionQueueName(p)), WEBHOOK_QUEUE];
  const rows = queues.map((q) => {
    const slot = keySlot(`${config.queuePrefix}:${q}:wait`);
    return { q, slot, owner: owners.find(([from, to]) => slot >= from && slot <= to)?.[2] ?? '(unassigned)' };
  });
  const perOwner = new Map<string, string[]>();
  for (const r of rows) perOwner.set(r.owner, [...(perOwner.get(r.owner) ?? []), r.q]);
  const out = [
    `${partitions} partitions; owners from ${source}`,
    '',
    '| queue | slot | primary |',
    '|---|---|---|',
    ...rows.map((r) => `| \`${r.q}\` | ${r.slot} | ${r.owner} |`),
    '',
    '| primary | queues |',
    '|---|---|',
    ...[...perOwner].sort().map(([owner, qs]) => `| ${owner} | ${qs.length}: ${qs.map((q) => `\`${q}\``).join(', ')} |`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
