/**
 * `npm run verify -- [--mongodb-uri <uri>] [--application <id>]`: the exactness verifier run
 * directly against a database (docs/operations.md, "Verifying exactness") — no API, no Redis, no
 * configuration but the database's address; read-only. Prints one line per application and one per
 * discrepancy (`--json`: the reports as the admin API gives them); exits 3 when any discrepancy
 * was found, 1 on an error, 2 on a usage error.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import { connectDatabase } from '../shared/data/db.js';
import { createRepositories } from '../shared/services.js';
import { verifyReportBody } from '../shared/usecases/admin/verify.usecase.js';
import { verifyAllApplications, verifyApplication, type VerifyOptions } from '../shared/usecases/verify-exactness.usecase.js';
import { DISCREPANCIES_EXIT, reportLines } from './verify-report.js';

const whole = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('not a whole number');
  return n;
};

export const program = new Command('npm run verify --')
  .description('Re-derive every limit counter and wallet balance from the journals and report where they disagree (read-only).')
  .addOption(new Option('--mongodb-uri <uri>', 'the database').env('MONGODB_URI').makeOptionMandatory())
  .option('--application <id>', 'one application (default: every application)')
  .option('--json', 'print the reports as JSON (one per line)')
  .option('--page-size <n>', 'documents per read (default 1000)', whole)
  .option('--max-keys <n>', 'customer and code counters recounted per pass over a campaign (default 200000)', whole)
  .option('--recheck-ms <n>', 'wait before recounting a counter that disagrees (default 1000)', whole)
  .option('--event-grace-ms <n>', 'redemptions this recent are not checked for events (default 60000)', whole)
  .option('--event-retention-days <n>', 'WEBHOOK_RETENTION_DAYS of the service (default 30)', whole)
  .showHelpAfterError('(--help for usage)')
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

interface Opts extends VerifyOptions {
  mongodbUri: string;
  application?: string;
  json?: boolean;
}

/** Runs the verifier as the command line asks; resolves to the number of discrepancies found. */
export async function runVerify(o: Opts, write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const db = await connectDatabase(o.mongodbUri);
  try {
    const deps = { repos: createRepositories(db), now: () => new Date() };
    const options: VerifyOptions = {
      ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}),
      ...(o.maxKeys !== undefined ? { maxKeys: o.maxKeys } : {}),
      ...(o.recheckMs !== undefined ? { recheckMs: o.recheckMs } : {}),
      ...(o.eventGraceMs !== undefined ? { eventGraceMs: o.eventGraceMs } : {}),
      ...(o.eventRetentionDays !== undefined ? { eventRetentionDays: o.eventRetentionDays } : {}),
    };
    let found = 0;
    const print = (report: Parameters<typeof verifyReportBody>[0]) => {
      const body = verifyReportBody(report);
      found += body.discrepancy_count;
      if (o.json) write(JSON.stringify(body));
      else for (const line of reportLines(body)) write(line);
    };
    if (o.application) print(await verifyApplication(deps, o.application, options));
    else await verifyAllApplications(deps, options, null, print);
    return found;
  } finally {
    await db.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  program.parse(process.argv);
  runVerify(program.opts<Opts>()).then(
    (found) => process.exit(found > 0 ? DISCREPANCIES_EXIT : 0),
    (err: Error) => {
      process.stderr.write(`verify failed: ${err.message}\n`);
      process.exit(1);
    },
  );
}
