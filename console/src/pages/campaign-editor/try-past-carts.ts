import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, must } from '../../api';
import { hrefOf } from '../../route';

/**
 * "Try this on past carts": the editor's form as it stands (the body Save would send, from
 * `toBody`, handed to `mutate`) backtested on the carts the application recorded — a saved
 * campaign as its `changes`, a new one as a draft — then the backtest's page. Nothing is saved.
 * The admin API checks the campaign as Save's call would, and names a refused field by the same
 * path, so the editor says it beside its field.
 */
export function useTryOnPastCarts(app: string, campaign: string | undefined) {
  const queries = useQueryClient();
  return useMutation({
    // The body is handed in at the click: the form as it stands then.
    mutationFn: (body: Record<string, unknown>) =>
      must(
        admin.POST('/admin/applications/{app}/backtests', {
          params: { path: { app } },
          // The form's body as Save sends it: the admin API checks it (the format's types are the spec's, the form's text is not).
          body: campaign !== undefined ? { campaign_id: campaign, changes: body as never } : { campaign: body as never },
        }),
      ),
    onSuccess: async (made) => {
      await queries.invalidateQueries({ queryKey: ['backtests', app] });
      window.location.hash = hrefOf({ page: 'backtests', app, backtest: made.id });
    },
  });
}
