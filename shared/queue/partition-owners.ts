/**
 * Which worker replica consumes which partition queue (docs/scaling.md, "Partition owners").
 * Every replica keeps a heartbeat in one Redis sorted set (its id, scored by when it expires, on
 * Redis's clock), and each partition goes to one live replica by rendezvous hashing — the same
 * answer in every replica that sees the same members, and when a replica joins or leaves only
 * its share of partitions moves. A replica that stops beating (killed, frozen, cut off from
 * Redis) is dropped once its heartbeat expires and the others take its partitions.
 *
 * Ownership is an efficiency, never the safety: each partition queue keeps its global
 * concurrency of 1, so two replicas that both believe they own a partition for a moment (a
 * membership change seen at different instants) still run its jobs one at a time.
 */
import type { Cluster, Redis } from 'ioredis';
import { fnv1a } from './names.js';
import type { RedisClient } from './redis.js';

/** FNV-1a of `member` and `partition`: stable across processes and releases. */
function weight(member: string, partition: number): number {
  let h = fnv1a(`${member}\n${partition}`);
  // A final avalanche: FNV's last bytes (the partition number) would otherwise sway little.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  return h >>> 0;
}

/** The partitions among `0 … partitions - 1` that `me` owns when `members` are alive (all of them when it is alone, or not among them). */
export function ownedPartitions(members: readonly string[], me: string, partitions: number): number[] {
  const live = members.includes(me) ? members : [...members, me];
  const owned: number[] = [];
  for (let p = 0; p < partitions; p++) {
    let best = live[0]!;
    let bestWeight = weight(best, p);
    for (const m of live.slice(1)) {
      const w = weight(m, p);
      if (w > bestWeight || (w === bestWeight && m > best)) [best, bestWeight] = [m, w];
    }
    if (best === me) owned.push(p);
  }
  return owned;
}

// KEYS: the members' set. ARGV: this member, its heartbeat's lifetime (ms), 'leave' to leave.
// Redis's clock scores every heartbeat, so replicas' clocks never need to agree.
const BEAT = `
if ARGV[3] == 'leave' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return {}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 10)
return redis.call('ZRANGE', KEYS[1], 0, -1)`;

type WithBeat = { partitionOwnersBeat(key: string, member: string, ttlMs: number, mode: string): Promise<string[]> };

/** This replica's membership: one heartbeat per call, answering the members alive now. */
export class PartitionMembership {
  private readonly key: string;
  private readonly connection: RedisClient & WithBeat;

  constructor(
    connection: RedisClient,
    prefix: string,
    readonly me: string,
    private readonly ttlMs: number,
  ) {
    (connection as Redis | Cluster).defineCommand('partitionOwnersBeat', { numberOfKeys: 1, lua: BEAT });
    this.connection = connection as RedisClient & WithBeat;
    this.key = `${prefix}:{partition-owners}:members`;
  }

  /** Renews this replica's heartbeat; the live members, this one included. */
  beat(): Promise<string[]> {
    return this.connection.partitionOwnersBeat(this.key, this.me, this.ttlMs, 'beat');
  }

  /** Leaves at once (a clean shutdown): the others take its partitions at their next beat. */
  async leave(): Promise<void> {
    await this.connection.partitionOwnersBeat(this.key, this.me, this.ttlMs, 'leave');
  }
}
