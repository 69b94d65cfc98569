/**
 * Preloaded into a worker process by tests that need a job to outlast the API's wait
 * (`TEST_SLOW_DB_MS`): every write and single-document read of the real database is delayed by
 * that many milliseconds. The database is still the real one; only its latency grows.
 */
import mongoose from 'mongoose';

const delay = Number(process.env.TEST_SLOW_DB_MS ?? 0);
if (delay > 0) {
  const proto = mongoose.mongo.Collection.prototype as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of ['insertOne', 'updateOne', 'findOne', 'findOneAndUpdate']) {
    const original = proto[method]!;
    proto[method] = async function (this: unknown, ...args: unknown[]) {
      await new Promise((r) => setTimeout(r, delay));
      return original.apply(this, args);
    };
  }
}
