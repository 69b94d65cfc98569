/**
 * Database refusals on demand, from the real server: the next writes to a collection fail the way
 * a busy database fails them (a deadlock, a write conflict), so that a test can show what the
 * service answers. Nothing in the service is replaced; the server itself answers the error.
 *
 * - On the offline test database (FerretDB on PostgreSQL + DocumentDB, tools/testdb): a trigger on
 *   the collection's table raises PostgreSQL's `deadlock detected` (SQLSTATE 40P01) for the next N
 *   inserts or updates — FerretDB answers it as InternalError (1), exactly as it answers a real
 *   deadlock. It needs the database's PostgreSQL log path in `TESTDB_LOG` (set by `npm test`,
 *   `.ci/run` and the test hooks when they start the database): its socket is beside it.
 * - On MongoDB: the `failCommand` fail point with WriteConflict (112), when the server runs with
 *   `enableTestCommands`.
 * - Otherwise null: the caller skips, saying why.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from '../../shared/data/db.js';

export type WriteKind = 'INSERT' | 'UPDATE';

export interface DatabaseFaults {
  /** What the server answers the failed writes (for the test's log line). */
  readonly error: string;
  /** The next `times` writes of these kinds to `collection` fail. */
  failNextWrites(collection: string, kinds: WriteKind[], times: number): Promise<void>;
  /** Every armed fault removed. */
  clear(): Promise<void>;
}

export const WHY_NO_FAULTS =
  'needs the test database with TESTDB_LOG set (npm test sets it) or a mongod started with enableTestCommands: this server cannot be made to refuse writes';

export async function databaseFaults(db: Database): Promise<DatabaseFaults | null> {
  const admin = db.connection.db!.admin();
  const info = (await admin.command({ buildInfo: 1 })) as { ferretdb?: unknown };
  if (info.ferretdb) return process.env.TESTDB_LOG ? postgresFaults(db, process.env.TESTDB_LOG) : null;
  return mongoFaults(db);
}

/** Runs SQL on the test database's PostgreSQL (as `postgres`, over its socket); resolves with psql's output. */
function psql(socketDir: string, port: string, sql: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'psql',
      ['-h', socketDir, '-p', port, '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', sql],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`psql exited ${code}: ${err}`))));
  });
}

function postgresFaults(db: Database, log: string): DatabaseFaults {
  const socketDir = dirname(log);
  const socket = readdirSync(socketDir).find((f) => /^\.s\.PGSQL\.\d+$/.test(f));
  if (!socket) throw new Error(`no PostgreSQL socket in ${socketDir}`);
  const port = socket.split('.').pop()!;
  const run = (sql: string) => psql(socketDir, port, sql);
  const armed: string[] = [];
  const tableOf = async (collection: string) => {
    const id = await run(
      `select collection_id from documentdb_api_catalog.collections where database_name = '${db.connection.name}' and collection_name = '${collection}'`,
    );
    if (!/^\d+$/.test(id)) throw new Error(`collection ${collection} of ${db.connection.name} not found in DocumentDB's catalog`);
    return `documentdb_data.documents_${id}`;
  };
  return {
    error: 'InternalError (1) "deadlock detected" (PostgreSQL 40P01 through FerretDB)',
    async failNextWrites(collection, kinds, times) {
      const table = await tableOf(collection);
      const name = `test_fault_${table.split('_').pop()}_${kinds.join('_').toLowerCase()}`;
      // nextval is outside the transaction: the count goes on when the statement it fails rolls back.
      await run(`
        drop trigger if exists ${name} on ${table};
        drop sequence if exists public.${name};
        create sequence public.${name};
        create or replace function public.${name}() returns trigger language plpgsql as $$
        begin
          if nextval('public.${name}') <= ${times} then
            raise exception 'deadlock detected' using errcode = '40P01';
          end if;
          return new;
        end $$;
        create trigger ${name} before ${kinds.join(' or ')} on ${table} for each row execute function public.${name}();`);
      armed.push(
        `drop trigger if exists ${name} on ${table}; drop function if exists public.${name}(); drop sequence if exists public.${name};`,
      );
    },
    async clear() {
      for (const sql of armed.splice(0)) await run(sql);
    },
  };
}

async function mongoFaults(db: Database): Promise<DatabaseFaults | null> {
  const admin = db.connection.db!.admin();
  const set = (doc: Record<string, unknown>) => admin.command({ configureFailPoint: 'failCommand', ...doc });
  try {
    await set({ mode: 'off' });
  } catch {
    return null; // no enableTestCommands
  }
  const command: Record<WriteKind, string[]> = { INSERT: ['insert'], UPDATE: ['update', 'findAndModify'] };
  return {
    error: 'WriteConflict (112) from the failCommand fail point',
    async failNextWrites(collection, kinds, times) {
      await set({
        mode: { times },
        data: { failCommands: kinds.flatMap((k) => command[k]), errorCode: 112, namespace: `${db.connection.name}.${collection}` },
      });
    },
    async clear() {
      await set({ mode: 'off' });
    },
  };
}
