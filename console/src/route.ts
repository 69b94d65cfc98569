/**
 * Where the console is: the part of the URL after `#`, e.g. `#/applications/app_1/campaigns`.
 * Hash routes need nothing of the server (it serves one index.html) and survive a reload.
 */
import { useEffect, useState } from 'react';

export type Route =
  { page: 'applications' } | { page: 'campaigns'; app: string } | { page: 'try'; app: string } | { page: 'audit'; app?: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'applications' && parts[1] && parts[2] === 'campaigns') return { page: 'campaigns', app: parts[1] };
  if (parts[0] === 'applications' && parts[1] && parts[2] === 'try') return { page: 'try', app: parts[1] };
  if (parts[0] === 'audit') return parts[1] ? { page: 'audit', app: parts[1] } : { page: 'audit' };
  return { page: 'applications' };
}

export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'applications':
      return '#/applications';
    case 'campaigns':
      return `#/applications/${encodeURIComponent(route.app)}/campaigns`;
    case 'try':
      return `#/applications/${encodeURIComponent(route.app)}/try`;
    case 'audit':
      return route.app ? `#/audit/${encodeURIComponent(route.app)}` : '#/audit';
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}
