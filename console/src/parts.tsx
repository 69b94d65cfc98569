import type { UseInfiniteQueryResult } from '@tanstack/react-query';
import type { InputHTMLAttributes, ReactNode } from 'react';
import { sentenceOf } from './field-errors';
import { reasonInWords } from './reason-words';
import { hrefOf } from './route';
import { useApplication } from './use-application';

/**
 * The trail above an application's pages: Applications / the application by its name (to its
 * campaigns) / where this page is. Names, never ids: "…" until the name is read.
 */
export function AppCrumbs({ app, children }: { app: string; children?: ReactNode }) {
  const application = useApplication(app);
  return (
    <p className="crumbs">
      <a href={hrefOf({ page: 'applications' })}>Applications</a> /{' '}
      <a href={hrefOf({ page: 'campaigns', app })}>{application.data?.name ?? '…'}</a>
      {children ? <> / {children}</> : null}
    </p>
  );
}

/** "Load more": the next page of a cursor-paged listing (never an offset: 10,000 rows page as cheaply as 10). */
export function MoreButton({ list }: { list: Pick<UseInfiniteQueryResult, 'hasNextPage' | 'isFetchingNextPage' | 'fetchNextPage'> }) {
  if (!list.hasNextPage) return null;
  return (
    <button type="button" className="more" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
      {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
    </button>
  );
}

/** A failure, said where it happened (role=alert: screen readers announce it). */
export function ErrorLine({ error, id }: { error: { message: string } | string | null | undefined; id?: string }) {
  if (!error) return null;
  return (
    <p id={id} role="alert" className="error">
      {typeof error === 'string' ? error : error.message}
    </p>
  );
}

/** A labelled input with the admin API's error for it beside it, in the form's words (outside the label: the input's name stays its label). */
export function Field({
  label,
  name,
  error,
  ...input
}: { label: string; name: string; error?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = `field-${name}`;
  return (
    <div className={error ? 'control invalid' : 'control'}>
      <label>
        {label}
        <input name={name} {...input} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
      </label>
      {error && (
        <span id={`${id}-error`} className="field-error">
          {sentenceOf(error, label)}
        </span>
      )}
    </div>
  );
}

/** Counts by refusal reason (`reasons`: the most frequent first), each reason in words with its code as a tooltip; `counted` heads the counts. */
export function ReasonsTable({ reasons, caption, counted }: { reasons: [string, number][]; caption: string; counted: string }) {
  return (
    <div className="scroll">
      <table className="refusals">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Why</th>
            <th scope="col">{counted}</th>
          </tr>
        </thead>
        <tbody>
          {reasons.map(([reason, n]) => (
            <tr key={reason}>
              <th scope="row">
                <span title={reason}>{reasonInWords(reason)}</span>
              </th>
              <td>{n.toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
