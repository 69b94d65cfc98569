/**
 * Finds the route template a path would have reached, for requests answered before routing
 * (a malformed JSON body or one over the limit is refused by the body parser that runs ahead of
 * every route). Without it those 400s and 413s would be counted as `unmatched` instead of under
 * their route. Uses the router's public `listRoutes()` (router ≥ 2.3, Express 5).
 */
/** One entry of `router.listRoutes()`: a route (`methods`) or a mounted router (`router`). */
interface RouteEntry {
  path: string | RegExp;
  methods?: string[];
  router?: unknown;
}
interface Listable {
  listRoutes(): RouteEntry[];
}
const isListable = (r: unknown): r is Listable => typeof (r as Partial<Listable> | undefined)?.listRoutes === 'function';

const segmentsOf = (path: string) => path.split('/').filter((s, i, all) => s !== '' || (i > 0 && i < all.length - 1));

/**
 * Matches `pathSegments` against a template's segments: literals compare case-insensitively (the
 * router's default), `:name` takes one non-empty segment. Templates with wildcards or optional
 * groups are not needed here and never match. Returns how many path segments were consumed.
 */
function matchSegments(template: string, pathSegments: string[], prefix: boolean): number | undefined {
  const parts = segmentsOf(template);
  if (parts.some((p) => /[*?(){}]/.test(p))) return undefined;
  if (prefix ? pathSegments.length < parts.length : pathSegments.length !== parts.length) return undefined;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const seg = pathSegments[i]!;
    if (part.startsWith(':') ? seg === '' : part.toLowerCase() !== seg.toLowerCase()) return undefined;
  }
  return parts.length;
}

function resolve(router: Listable, method: string, pathSegments: string[], base: string): string | undefined {
  for (const entry of router.listRoutes()) {
    if (typeof entry.path !== 'string') continue;
    if (entry.router) {
      const used = matchSegments(entry.path, pathSegments, true);
      if (used === undefined || !isListable(entry.router)) continue;
      const found = resolve(entry.router, method, pathSegments.slice(used), base + (entry.path === '/' ? '' : entry.path));
      if (found) return found;
    } else if (
      entry.methods &&
      (entry.methods.includes(method) || entry.methods.includes('*')) &&
      matchSegments(entry.path, pathSegments, false) !== undefined
    ) {
      return base + entry.path;
    }
  }
  return undefined;
}

/**
 * The template (e.g. `/wallets/customer/:sourceId`) that `method path` would reach on `router`
 * (an Express 5 `app.router`), or undefined — also when the router cannot list its routes.
 */
export function routeTemplateOf(router: unknown, method: string, path: string): string | undefined {
  return isListable(router) ? resolve(router, method.toUpperCase(), segmentsOf(path), '') : undefined;
}
