import type { UseInfiniteQueryResult } from '@tanstack/react-query';

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
