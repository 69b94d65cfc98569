/**
 * `npm run config:docs`: writes README.md's configuration table (between its `settings` markers)
 * and `.env.example` from the settings declared in shared/config.ts. test/unit/config.spec.ts
 * fails when either differs from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { envExample, settingsTable } from '../shared/config.js';

const root = resolve(import.meta.dirname, '..');
export const BEGIN = '<!-- settings:begin (generated from shared/config.ts: npm run config:docs) -->';
export const END = '<!-- settings:end -->';

/** README.md with its table replaced by the generated one. */
export function readmeWithTable(readme: string): string {
  const i = readme.indexOf(BEGIN);
  const j = readme.indexOf(END);
  if (i < 0 || j < i) throw new Error('README.md has no settings markers');
  return `${readme.slice(0, i + BEGIN.length)}\n${settingsTable()}\n${readme.slice(j)}`;
}

if (process.argv[1]?.endsWith('config-docs.ts')) {
  const readme = join(root, 'README.md');
  writeFileSync(readme, readmeWithTable(readFileSync(readme, 'utf8')));
  writeFileSync(join(root, '.env.example'), envExample());
  process.stdout.write('wrote README.md (settings table) and .env.example\n');
}
