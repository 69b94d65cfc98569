import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Papa from 'papaparse';
import { useState, type FormEvent } from 'react';
import { admin, ApiFailure, everyPage, must, problemOf, type Who } from '../api';
import { sentenceOf } from '../field-errors';
import { AppCrumbs, ErrorLine, Field, MoreButton } from '../parts';

const PAGE = 500;

/**
 * A bulk campaign's codes: generate, import a CSV file (one code per line, first column; a header
 * `code` is skipped), export them all as CSV. The admin API checks each code; a refusal names the
 * CSV line of every bad code (its `fields` are by position in the list sent).
 */
export function CodesPage({ app, campaign, who }: { app: string; campaign: string; who: Who }) {
  const queries = useQueryClient();
  const [outcome, setOutcome] = useState<string | null>(null);
  const details = useQuery({
    queryKey: ['campaign', app, campaign],
    queryFn: () => must(admin.GET('/admin/applications/{app}/campaigns/{campaign}', { params: { path: { app, campaign } } })),
  });
  const list = useInfiniteQuery({
    queryKey: ['codes', app, campaign],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(
        admin.GET('/admin/applications/{app}/campaigns/{campaign}/codes', {
          params: { path: { app, campaign }, query: { cursor: pageParam, limit: 50 } },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const added = (r: { inserted: number; taken: string[]; total: number }) => {
    setOutcome(
      `${r.inserted} added${r.taken.length ? `; already in use, not added: ${r.taken.join(', ')}` : ''}; the campaign has ${r.total} codes.`,
    );
    void queries.invalidateQueries({ queryKey: ['codes', app, campaign] });
  };
  const codes = list.data?.pages.flatMap((p) => p.codes) ?? [];
  const isBulk = details.data?.code_type === 'bulk';
  return (
    <>
      <AppCrumbs app={app}>{details.data?.name ?? '…'}</AppCrumbs>
      <h1>Codes{details.data ? ` of ${details.data.name}` : ''}</h1>
      <ErrorLine error={details.error} />
      {details.data && !isBulk && <p className="hint">A fixed-code campaign has one code: {details.data.code}.</p>}
      {who.canChange && isBulk && (
        <div className="panels">
          <GenerateCodes app={app} campaign={campaign} onAdded={added} />
          <ImportCodes app={app} campaign={campaign} onAdded={added} />
        </div>
      )}
      {outcome && (
        <p role="status" className="notice">
          {outcome}
        </p>
      )}
      <ExportCodes app={app} campaign={campaign} name={details.data?.name ?? campaign} />
      <ErrorLine error={list.error} />
      <table tabIndex={0}>
        <caption className="visually-hidden">Codes</caption>
        <thead>
          <tr>
            <th scope="col">Code</th>
            <th scope="col">Used</th>
            <th scope="col">Kind</th>
          </tr>
        </thead>
        <tbody>
          {codes.map((c) => (
            <tr key={c.id + c.code}>
              <td>
                <code title={`coupon_code_id ${c.id}`}>{c.code}</code>
              </td>
              <td>
                {c.used === null || c.uses_allowed === null
                  ? 'see the campaign’s usage'
                  : c.used >= c.uses_allowed
                    ? `${c.used} of ${c.uses_allowed}: used up`
                    : `${c.used} of ${c.uses_allowed}`}
              </td>
              <td>{c.kind === 'bulk' ? 'one of many codes' : 'the campaign’s one code'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.isSuccess && codes.length === 0 && <p>No codes yet.</p>}
      <MoreButton list={list} />
    </>
  );
}

type Added = (r: { inserted: number; taken: string[]; total: number }) => void;

function GenerateCodes({ app, campaign, onAdded }: { app: string; campaign: string; onAdded: Added }) {
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const prefix = String(form.get('prefix') ?? '');
    const length = String(form.get('length') ?? '');
    try {
      const r = await must(
        admin.POST('/admin/applications/{app}/campaigns/{campaign}/codes', {
          params: { path: { app, campaign } },
          body: {
            generate: { count: Number(form.get('count')), ...(prefix ? { prefix } : {}), ...(length ? { length: Number(length) } : {}) },
          },
        }),
      );
      setFields({});
      setError(null);
      onAdded(r);
    } catch (err) {
      setFields(err instanceof ApiFailure ? (err.body.fields ?? {}) : {});
      setError(problemOf(err));
    }
  }
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Generate codes" className="panel">
      <h2>Generate</h2>
      <Field
        label="How many"
        name="count"
        error={fields['generate.count']}
        type="number"
        min={1}
        max={100000}
        defaultValue="100"
        required
      />
      <Field label="Prefix" name="prefix" error={fields['generate.prefix']} placeholder="XMAS-" />
      <Field
        label="Length after the prefix"
        name="length"
        error={fields['generate.length']}
        type="number"
        min={6}
        max={32}
        placeholder="10"
      />
      <button type="submit">Generate codes</button>
      {Object.keys(fields).length === 0 && <ErrorLine error={error} />}
    </form>
  );
}

/** Codes of a CSV text: the first column of each non-empty line, with its line number; a first line `code` is a header. */
export function codesOfCsv(text: string): { code: string; line: number }[] {
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: false });
  const out: { code: string; line: number }[] = [];
  parsed.data.forEach((row, i) => {
    const code = (row[0] ?? '').trim();
    if (row.length === 1 && code === '') return; // an empty line
    if (i === 0 && code.toLowerCase() === 'code') return;
    out.push({ code, line: i + 1 });
  });
  return out;
}

function ImportCodes({ app, campaign, onAdded }: { app: string; campaign: string; onAdded: Added }) {
  const [problems, setProblems] = useState<string[]>([]);
  const run = useMutation({
    mutationFn: async (file: File) => {
      const rows = codesOfCsv(await file.text());
      if (rows.length === 0) throw new Error(`${file.name} holds no codes`);
      try {
        return await must(
          admin.POST('/admin/applications/{app}/campaigns/{campaign}/codes', {
            params: { path: { app, campaign } },
            body: { codes: rows.map((r) => r.code) },
          }),
        );
      } catch (err) {
        // The API names each bad code by its place in the list: say its line of the file.
        const fields = err instanceof ApiFailure ? (err.body.fields ?? {}) : {};
        const lines = Object.entries(fields).flatMap(([path, message]) => {
          const m = /^codes\.(\d+)$/.exec(path);
          const row = m ? rows[Number(m[1])] : undefined;
          return row ? [`line ${row.line}: ${JSON.stringify(row.code)} — ${sentenceOf(message, 'The code')}`] : [];
        });
        if (lines.length > 0) throw new ImportRefused(lines);
        throw err;
      }
    },
    onMutate: () => setProblems([]),
    onSuccess: onAdded,
    onError: (err) => setProblems(err instanceof ImportRefused ? err.lines : [problemOf(err)]),
  });
  return (
    <form className="panel" aria-label="Import codes" onSubmit={(e) => e.preventDefault()}>
      <h2>Import a CSV file</h2>
      <p className="hint">One code per line (the first column); a first line “code” is skipped. Nothing is added if a line is bad.</p>
      <label>
        CSV file
        <input
          type="file"
          accept=".csv,text/csv,text/plain"
          aria-describedby="import-problems"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = '';
            if (file) run.mutate(file);
          }}
        />
      </label>
      {run.isPending && <p role="status">Importing…</p>}
      {problems.length > 0 && (
        <div id="import-problems" role="alert" className="error">
          <p>Not imported:</p>
          <ul>
            {problems.slice(0, 20).map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
          {problems.length > 20 && <p>… and {problems.length - 20} more lines.</p>}
        </div>
      )}
    </form>
  );
}

class ImportRefused extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('; '));
  }
}

/** Every code of the campaign as a CSV download (`code,id,kind,used,uses_allowed`), fetched page by page. */
function ExportCodes({ app, campaign, name }: { app: string; campaign: string; name: string }) {
  const [state, setState] = useState<string | null>(null);
  async function exportAll() {
    setState('Exporting…');
    try {
      const rows = await everyPage(
        (cursor) =>
          must(
            admin.GET('/admin/applications/{app}/campaigns/{campaign}/codes', {
              params: { path: { app, campaign }, query: { cursor, limit: PAGE } },
            }),
          ),
        (page) => page.codes,
        (read) => setState(`Exporting… ${read} codes`),
      );
      const csv = Papa.unparse(rows, { columns: ['code', 'id', 'kind', 'used', 'uses_allowed'] });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([csv + '\n'], { type: 'text/csv' }));
      link.download = `${name.replace(/[^\w.-]+/g, '-')}-codes.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
      setState(`Exported ${rows.length} codes.`);
    } catch (err) {
      setState(`Export failed: ${problemOf(err)}`);
    }
  }
  return (
    <p>
      <button type="button" onClick={() => void exportAll()}>
        Export codes as CSV
      </button>{' '}
      {state && <span role="status">{state}</span>}
    </p>
  );
}
