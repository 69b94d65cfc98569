import { useInfiniteQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, must, type AuditEntry } from '../api';
import { useApplication } from '../use-application';
import { formatWhen, instantIn } from '../when';

const TARGET_TYPES = ['application', 'campaign', 'customer', 'wallet', 'webhook', 'operator', 'token', 'session'] as const;
type TargetType = (typeof TARGET_TYPES)[number];
import { ErrorLine, MoreButton } from '../parts';

interface Filters {
  application?: string;
  action?: string;
  target_type?: TargetType;
  from?: string;
  to?: string;
}

/** The audit log (GET /admin/audit): who changed what, with each field before and after. */
export function AuditPage({ app }: { app?: string }) {
  // One application's log reads on its clock; the whole console's on the browser's.
  const timeZone = useApplication(app).data?.timezone ?? null;
  const [filters, setFilters] = useState<Filters>(app ? { application: app } : {});
  const list = useInfiniteQuery({
    queryKey: ['audit', filters],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => must(admin.GET('/admin/audit', { params: { query: { ...filters, cursor: pageParam, limit: 50 } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  function apply(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const value = (k: string) => String(form.get(k) ?? '').trim() || undefined;
    const iso = (k: string) => instantIn(value(k) ?? '', timeZone);
    setFilters({
      application: value('application'),
      action: value('action'),
      target_type: value('target_type') as TargetType | undefined,
      from: iso('from'),
      to: iso('to'),
    });
  }
  const entries = list.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <>
      <h1>Audit log</h1>
      <form className="row" onSubmit={apply} aria-label="Filter the audit log">
        <label>
          Application
          <input name="application" defaultValue={filters.application} />
        </label>
        <label>
          Action
          <input name="action" placeholder="campaign.update" />
        </label>
        <label>
          Target type
          <select name="target_type" defaultValue="">
            <option value="">any</option>
            {TARGET_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          From
          <input name="from" type="datetime-local" />
        </label>
        <label>
          To
          <input name="to" type="datetime-local" />
        </label>
        <button type="submit">Filter</button>
        <span className="hint">Times are in {timeZone ?? 'your browser’s timezone'}.</span>
      </form>
      <ErrorLine error={list.error} />
      <table className="audit" tabIndex={0}>
        <caption className="visually-hidden">Audit entries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Changes (before → after)</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <AuditRow key={e.id} entry={e} timeZone={timeZone} />
          ))}
        </tbody>
      </table>
      {list.isSuccess && entries.length === 0 && <p>No entries match.</p>}
      <MoreButton list={list} />
    </>
  );
}

function AuditRow({ entry, timeZone }: { entry: AuditEntry; timeZone: string | null }) {
  const show = (v: unknown) => (v === undefined ? '—' : JSON.stringify(v));
  return (
    <tr>
      <td>{formatWhen(entry.at, timeZone)}</td>
      <td>{entry.actor.kind === 'operator' ? entry.actor.email : 'admin token'}</td>
      <td>
        <code>{entry.action}</code>
      </td>
      <td>
        {entry.target.type} <code>{entry.target.id ?? ''}</code>
      </td>
      <td>
        <ul className="changes">
          {Object.entries(entry.changes).map(([field, change]) => (
            <li key={field}>
              <code>{field}</code>: {show(change.before)} → {show(change.after)}
            </li>
          ))}
        </ul>
      </td>
    </tr>
  );
}
