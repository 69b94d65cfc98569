import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, must } from '../../api';
import { flash } from '../../flash';
import { hrefOf } from '../../route';

/** Saves `body` (a new campaign, or the changes of `campaign`), then goes back to the application's campaigns, which say so. */
export function useSaveCampaign(app: string, campaign: string | undefined, body: Record<string, unknown> | null) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      if (campaign !== undefined)
        return must(
          admin.PATCH('/admin/applications/{app}/campaigns/{campaign}', {
            params: { path: { app, campaign } },
            body: body as never,
          }),
        );
      return must(admin.POST('/admin/applications/{app}/campaigns', { params: { path: { app } }, body: body as never }));
    },
    onSuccess: async (saved) => {
      flash(campaign !== undefined ? `Changes to “${saved.name}” saved.` : `Campaign “${saved.name}” created.`);
      await queries.invalidateQueries({ queryKey: ['campaigns', app] });
      await queries.invalidateQueries({ queryKey: ['campaign', app, campaign] });
      window.location.hash = hrefOf({ page: 'campaigns', app });
    },
  });
}
