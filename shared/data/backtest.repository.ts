/** Backtests (backtest.schema.ts): asked by the admin API, advanced and finished by the worker that runs them. */
import { Types } from 'mongoose';
import type { Models } from './db.js';
import type { BacktestDoc } from './backtest.schema.js';
import type { RecordOf } from './stored.js';

export type BacktestRecord = RecordOf<BacktestDoc, 'application' | 'campaign', 'updatedAt'>;

const toRecord = (d: BacktestDoc): BacktestRecord => ({
  id: String(d._id),
  applicationId: String(d.application),
  status: d.status,
  kind: d.kind,
  campaignId: d.campaign ? String(d.campaign) : null,
  name: d.name,
  definition: d.definition,
  from: d.from,
  to: d.to,
  start: d.start,
  end: d.end,
  carts: d.carts,
  done: d.done ?? 0,
  total: d.total ?? 0,
  result: d.result ?? null,
  error: d.error ?? null,
  startedAt: d.startedAt ?? null,
  finishedAt: d.finishedAt ?? null,
  createdAt: d.createdAt,
});

export type NewBacktest = Pick<
  BacktestRecord,
  'applicationId' | 'kind' | 'campaignId' | 'name' | 'definition' | 'from' | 'to' | 'start' | 'end' | 'carts'
>;

/** How many of an application's backtests are listed (the newest). */
export const BACKTESTS_LISTED = 20;

export function backtestRepository({ Backtest }: Models) {
  return {
    async create(b: NewBacktest): Promise<BacktestRecord> {
      const { applicationId, campaignId, ...rest } = b;
      const doc = await Backtest.create({ ...rest, application: applicationId, campaign: campaignId, status: 'queued' });
      return toRecord(doc.toObject());
    },
    async findById(applicationId: string, id: string): Promise<BacktestRecord | null> {
      if (!Types.ObjectId.isValid(id)) return null;
      const d = await Backtest.findOne({ _id: id, application: applicationId }).lean<BacktestDoc>();
      return d ? toRecord(d) : null;
    },
    async newest(applicationId: string): Promise<BacktestRecord[]> {
      const ds = await Backtest.find({ application: applicationId }).sort({ _id: -1 }).limit(BACKTESTS_LISTED).lean<BacktestDoc[]>();
      return ds.map(toRecord);
    },
    /** Started (again, after a worker died): its progress from zero. */
    async started(id: string, total: number, at: Date): Promise<void> {
      await Backtest.updateOne({ _id: id }, { $set: { status: 'running', total, done: 0, startedAt: at, error: null, result: null } });
    },
    async progressed(id: string, done: number): Promise<void> {
      await Backtest.updateOne({ _id: id }, { $set: { done } });
    },
    async finished(id: string, result: Record<string, unknown>, done: number, at: Date): Promise<void> {
      await Backtest.updateOne({ _id: id }, { $set: { status: 'done', result, done, finishedAt: at } });
    },
    async failed(id: string, error: string, at: Date): Promise<void> {
      await Backtest.updateOne({ _id: id }, { $set: { status: 'failed', error, finishedAt: at } });
    },
    /** The record the worker runs (by id alone: its job names it). */
    async byId(id: string): Promise<BacktestRecord | null> {
      const d = await Backtest.findById(id).lean<BacktestDoc>();
      return d ? toRecord(d) : null;
    },
  };
}
export type BacktestRepository = ReturnType<typeof backtestRepository>;
