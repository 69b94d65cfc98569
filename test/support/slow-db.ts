/**
 * Preloaded into a worker process by tests that need a job to outlast the API's wait
 * (`TEST_SLOW_DB_MS`): every write and every read of the real database is delayed by
 * that many milliseconds. The database is still the real one; only its latency grows.
 */
import mongoose from 'mongoose';

const delay = Number(process.env.TEST_SLOW_DB_MS ?? 0);
type Proto = Record<string, (...args: unknown[]) => Promise<unknown>>;

if (delay > 0) {
  const slow = (proto: Proto, methods: string[]) => {
    for (const method of methods) {
      const original = proto[method]!;
      proto[method] = async function (this: unknown, ...args: unknown[]) {
        await new Promise((r) => setTimeout(r, delay));
        return original.apply(this, args);
      };
    }
  };
  // The driver's own paths (mongoose models, admin and recovery code).
  slow(mongoose.mongo.Collection.prototype as unknown as Proto, [
    'insertOne',
    'updateOne',
    'findOne',
    'findOneAndUpdate',
    'insertMany',
    'bulkWrite',
  ]);
  slow(mongoose.mongo.FindCursor.prototype as unknown as Proto, ['toArray']);
  // The server's own commands (find, insert, update, findAndModify) sent raw by shared/data/batched.ts.
  slow(mongoose.mongo.Db.prototype as unknown as Proto, ['command']);
}
