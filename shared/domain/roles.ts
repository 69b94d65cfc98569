/**
 * Who may do what in the admin API (docs/admin-api.md#operators): three roles, and optionally a
 * list of applications an operator is limited to. Pure: the admin router asks `may` and `reaches`
 * for every request and refuses with 403 what they deny.
 */

export const ROLES = ['owner', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** What an admin request does: reads, changes configuration, or manages operators and their roles. */
export type AdminAction = 'read' | 'change' | 'manage_operators';

const GRANTS: Record<Role, readonly AdminAction[]> = {
  owner: ['read', 'change', 'manage_operators'],
  editor: ['read', 'change'],
  viewer: ['read'],
};

/** Who is calling: the service's `ADMIN_TOKEN` (automation, the first owner) or an operator's personal token. */
export interface Actor {
  kind: 'admin_token' | 'operator';
  role: Role;
  /** The applications it may reach; null: all of them. */
  applications: readonly string[] | null;
  operatorId?: string;
  email?: string;
  tokenId?: string;
  /** Signed in through a browser session (its cookie): state-changing requests need its CSRF token. */
  sessionId?: string;
}

export const ADMIN_TOKEN_ACTOR: Actor = Object.freeze({ kind: 'admin_token', role: 'owner', applications: null });

export const may = (actor: Pick<Actor, 'role'>, action: AdminAction): boolean => GRANTS[actor.role].includes(action);

export const reaches = (actor: Pick<Actor, 'applications'>, applicationId: string): boolean =>
  actor.applications === null || actor.applications.includes(applicationId);

/** The words of a refusal: what the role may not do. */
export function refusalOf(actor: Pick<Actor, 'role'>, action: AdminAction): string {
  if (action === 'manage_operators') return `the ${actor.role} role may not manage operators`;
  return `the ${actor.role} role may not change anything`;
}
