/**
 * `npm run bench -- recording`: what recording a redeem's events costs the operations (the target:
 * one webhook endpoint adds ≤ 15% to a redeem's CPU), at the same offered rate. One API and one
 * operations worker (WEBHOOK_CONCURRENCY=0: no deliveries in it, none anywhere during the loads;
 * their jobs wait in the webhook queue). First a redeem without an endpoint as fast as answered
 * (the throughput), then a share of it (BENCH_PACED_SHARE, default 0.6) offered at a fixed rate to
 * an application without an endpoint and to one with an endpoint — ROUNDS times interleaved,
 * medians kept. At the same rate both phases share a turn of the event loop with as many
 * operations (the same batching), so the difference is what recording adds: the figure the
 * saturated comparison of `endpoints` mixes with a lower throughput's smaller batches.
 */
import { freshQueueLoads } from './dataset.js';
import { log, measure, medianOf, ROUNDS, row, startStack, TABLE_HEAD, type Result } from './stack.js';

const PACED_SHARE = Number(process.env.BENCH_PACED_SHARE ?? 0.6);
const REDEEM = '/coupons/apply?type=redeem';

export async function recordingBench(): Promise<string[]> {
  // The endpoint is never called (no delivery runs); the address only has to pass the policy.
  const stack = await startStack({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  try {
    // Each phase on an application of its own: every phase meets the same amount of data.
    const fresh = async (withHook: boolean) =>
      (await freshQueueLoads(stack.services, withHook ? 'http://127.0.0.1:9/hook' : undefined)).redeem;
    log('starting one API and one operations worker (no deliveries)');
    const { url } = await stack.startApi();
    await stack.startWorker({ WEBHOOK_CONCURRENCY: '0' });
    await measure('warm-up', `${url}${REDEEM}`, await fresh(false));
    await stack.drain();
    const full = await measure('redeem, as fast as answered', `${url}${REDEEM}`, await fresh(false));
    const rate = Math.max(10, Math.round(full.rps * PACED_SHARE));
    const of: Record<'plain' | 'hooked', Result[]> = { plain: [], hooked: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const round = `, ${rate}/s offered (round ${r + 1}/${ROUNDS})`;
      await stack.drain();
      of.plain.push(await measure(`redeem${round}`, `${url}${REDEEM}`, { ...(await fresh(false)), rate }));
      await stack.drain();
      of.hooked.push(
        await measure(`redeem, one webhook endpoint, events recorded${round}`, `${url}${REDEEM}`, { ...(await fresh(true)), rate }),
      );
    }
    await stack.drain();
    const plain = medianOf(of.plain, `redeem, ${rate}/s offered`);
    const hooked = medianOf(of.hooked, `redeem, one webhook endpoint, events recorded, ${rate}/s offered`);
    const ratio = (hooked.cpuMs ?? NaN) / (plain.cpuMs ?? NaN);
    // Each round's pair was measured back to back: its ratio is free of the drift between rounds.
    const pairs = of.plain.map((p, i) => (of.hooked[i]!.cpuMs ?? NaN) / (p.cpuMs ?? NaN)).sort((a, b) => a - b);
    const pairMedian = pairs[Math.floor((pairs.length - 1) / 2)]!;
    // Per group: where the recording's cost goes (a cashback redeem records two events).
    const groups = Object.keys(hooked.cpuBy ?? {});
    const added = groups.map((g) => `${g} ${((hooked.cpuBy![g]! - (plain.cpuBy?.[g] ?? 0)) / 2).toFixed(2)}`).join(', ');
    return [
      '',
      ...TABLE_HEAD,
      ...[full, plain, hooked].map(row),
      '',
      '| CPU per operation, all processes, the same offered rate | measured | target | |',
      '|---|---|---|---|',
      `| redeem with one endpoint, events recorded / without, at ${rate}/s | ${hooked.cpuMs?.toFixed(2)} / ${plain.cpuMs?.toFixed(2)} ms = ${ratio.toFixed(2)}x | <= 1.15x | ${ratio <= 1.15 ? 'met' : 'MISSED'} |`,
      `| the same, each round's pair (back to back): ${pairs.map((x) => `${x.toFixed(2)}x`).join(', ')}; median | ${pairMedian.toFixed(2)}x | <= 1.15x | ${pairMedian <= 1.15 ? 'met' : 'MISSED'} |`,
      `| per event recorded (two per redeem), by process: ms | ${added} | | |`,
    ];
  } finally {
    await stack.stop();
  }
}
