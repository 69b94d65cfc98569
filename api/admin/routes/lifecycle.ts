/** The rows every archivable resource has (docs/admin-api.md "Archive and delete"). */
import type { TargetType } from '../../../shared/usecases/admin/audit.usecase.js';
import type { AdminCall, PlainRoute } from '../admin-route.js';

/**
 * `POST <path>/archive`, `POST <path>/unarchive` and `DELETE <path>` of a resource of `type` named
 * by `:<param>`: changes, audited as `<type>.archive`, `<type>.unarchive` and `<type>.delete`.
 */
export function lifecycleRoutes(
  path: string,
  type: TargetType,
  param: string,
  setArchived: (call: AdminCall, archive: boolean) => Promise<unknown>,
  remove: (call: AdminCall) => Promise<unknown>,
): PlainRoute[] {
  const target = { param };
  return [
    {
      method: 'post',
      path: `${path}/archive`,
      action: 'change',
      audit: { type, verb: 'archive', target },
      status: 200,
      handler: (c) => setArchived(c, true),
    },
    {
      method: 'post',
      path: `${path}/unarchive`,
      action: 'change',
      audit: { type, verb: 'unarchive', target },
      status: 200,
      handler: (c) => setArchived(c, false),
    },
    { method: 'delete', path, action: 'change', audit: { type, verb: 'delete', target }, status: 200, handler: remove },
  ];
}
