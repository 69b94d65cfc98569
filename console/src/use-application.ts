import { useQuery } from '@tanstack/react-query';
import { admin, must, type Application } from './api';

/**
 * One application's settings (name, currency, coupons per order): the admin API lists
 * applications only, so its pages are read until this one is found (archived ones too).
 * Without `app`, nothing is read.
 */
export function useApplication(app: string | undefined) {
  return useQuery({
    queryKey: ['application', app],
    // No application (a page of the whole console): nothing to read.
    enabled: app !== undefined,
    queryFn: async (): Promise<Application | null> => {
      let cursor: string | undefined;
      do {
        const page = await must(admin.GET('/admin/applications', { params: { query: { cursor, limit: 1000, include_archived: true } } }));
        const found = page.applications.find((a) => a.id === app);
        if (found) return found;
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return null;
    },
  });
}
