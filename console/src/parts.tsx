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
