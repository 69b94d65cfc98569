import { useQuery } from '@tanstack/react-query';
import { admin, everyPage, must } from './api';

/** One campaign as a picker offers it: by its name, archived ones marked. */
export interface CampaignName {
  id: string;
  name: string;
  archived: boolean;
}

/**
 * Every campaign of an application, archived ones too, sorted by name: what a page picks a
 * campaign from (the redemption search, a backtest). Read page by page once per application.
 */
export function useCampaignNames(app: string) {
  return useQuery({
    queryKey: ['campaign-names', app],
    queryFn: async (): Promise<CampaignName[]> => {
      const all = await everyPage(
        (cursor) =>
          must(
            admin.GET('/admin/applications/{app}/campaigns', {
              params: { path: { app }, query: { cursor, limit: 1000, include_archived: true } },
            }),
          ),
        (page) => page.campaigns.map((c) => ({ id: c.id, name: c.name, archived: Boolean(c.archived_at) })),
      );
      return all.sort((a, b) => a.name.localeCompare(b.name));
    },
  });
}
