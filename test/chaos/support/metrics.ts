/**
 * A scenario's API metrics, read from its /metrics as Prometheus scrapes them (the API started
 * with `METRICS_TOKEN` in its environment).
 */
import type { ServiceProcess } from './processes.js';

export const METRICS_TOKEN = 'chaos-metrics-token-0123456789';

/** The value of one series (`name{…} value`) in an API process's /metrics. */
export async function metricAt(api: ServiceProcess, name: string): Promise<number> {
  const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const m = new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(await res.text());
  if (!m) throw new Error(`no ${name} in /metrics`);
  return Number(m[1]);
}
