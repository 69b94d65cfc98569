import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { parseConfig } from './shared/config.js';
import { connectDatabase } from './shared/data/db.js';
import { createServices } from './shared/services.js';
import { listCoupons } from './shared/usecases/list-coupons.usecase.js';
import { stringifyList } from './api/json-body.js';
import { benchOrder, loadBenchData } from './tools/bench/dataset.js';
const uri = process.env.MONGODB_URI! + 'prof' + Date.now();
const config = parseConfig({ MONGODB_URI: uri, NODE_ENV: 'test' });
const db = await connectDatabase(uri);
const services = createServices(config, db);
const data = await loadBenchData(services, () => {});
const app = (await services.repos.applications.findById(data.application.id))!;
const order = benchOrder(50, 'x');
const body = () => ({ source_id: 'bench-cust-1', order: JSON.parse(JSON.stringify(order)) });
const P = ['coupon_savings', 'order', 'items'];
for (let i = 0; i < 50; i++) stringifyList(await listCoupons(services, app, { body: body(), requestId: 'r' }), P);
const s = new Session();
s.connect();
await s.post('Profiler.enable');
await s.post('Profiler.start');
let tl = 0,
  ts = 0;
const N = 100;
for (let i = 0; i < N; i++) {
  const b = body();
  const t0 = performance.now();
  const r = await listCoupons(services, app, { body: b, requestId: 'r' });
  const t1 = performance.now();
  Buffer.from(stringifyList(r, P));
  tl += t1 - t0;
  ts += performance.now() - t1;
}
const { profile } = await s.post('Profiler.stop');
writeFileSync('/tmp/prof/list.cpuprofile', JSON.stringify(profile));
console.log('list usecase', (tl / N).toFixed(2), 'ms; stringify+encode', (ts / N).toFixed(2), 'ms');
await db.connection.dropDatabase();
await db.close();
