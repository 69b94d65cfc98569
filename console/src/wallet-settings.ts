/**
 * A wallet's points settings in the wallets page's form, and back to the admin API's format
 * (docs/wallets.md): `points_expiry` and `pending`. The form keeps what was typed (numbers as
 * text); the body carries a number where the text is one and the text otherwise, so the admin API —
 * the one place the settings are checked — refuses it with its message beside the field.
 *
 * A pending `until` is typed as a date and time (`datetime-local`) on the **wallet's** clock (its
 * timezone, which is also where its expiry dates are read), sent as an ISO instant; the page says
 * which zone.
 */
import type { Schemas } from '@coupons/client';
import { formatWhen, instantIn, localInputIn } from './when';

export type PointsExpiry = Schemas['PointsExpiry'];
export type PendingCredits = Schemas['PendingCredits'];

export const EXPIRY_KINDS = ['none', 'days', 'months', 'month', 'quarter', 'year'] as const;
export type ExpiryKind = (typeof EXPIRY_KINDS)[number];
export const EXPIRY_LABELS: Record<ExpiryKind, string> = {
  none: 'never',
  days: 'N days after they become spendable',
  months: 'N months after they become spendable',
  month: 'at the end of the month',
  quarter: 'at the end of the quarter',
  year: 'at the end of the year',
};
export const PENDING_KINDS = ['none', 'days', 'until'] as const;
export type PendingKind = (typeof PENDING_KINDS)[number];
export const PENDING_LABELS: Record<PendingKind, string> = {
  none: 'spendable at once',
  days: 'pending for N days',
  until: 'pending until a date and time',
};

export interface SettingsDraft {
  expiry: ExpiryKind;
  /** N of "N days/months after", as typed. */
  amount: string;
  pending: PendingKind;
  /** N of "pending for N days", as typed. */
  days: string;
  /** `datetime-local` text on the wallet's clock. */
  until: string;
  /** The stored `until` this draft started from, sent back unchanged while `until` is not edited (a local text drops its seconds). */
  savedUntil?: { local: string; iso: string };
}

/** A wallet's settings as the form's draft; a pending `until` on `timeZone`'s clock (the wallet's). */
export function settingsDraftOf(expiry: PointsExpiry, pending: PendingCredits, timeZone: string | null): SettingsDraft {
  const d: SettingsDraft = { expiry: 'none', amount: '', pending: 'none', days: '', until: '' };
  if (expiry?.kind === 'after') Object.assign(d, { expiry: expiry.unit, amount: String(expiry.amount) });
  else if (expiry?.kind === 'end_of') d.expiry = expiry.period;
  if (pending && 'days' in pending) Object.assign(d, { pending: 'days', days: String(pending.days) });
  else if (pending && 'until' in pending) {
    const local = localInputIn(pending.until, timeZone);
    Object.assign(d, { pending: 'until', until: local, savedUntil: { local, iso: pending.until } });
  }
  return d;
}

/** A whole number where the text is one; otherwise the text itself, for the API to refuse. */
const wholeOr = (text: string): number => (/^\s*\d+\s*$/.test(text) ? Number(text) : (text as unknown as number));

export function expiryOf(d: SettingsDraft): PointsExpiry {
  switch (d.expiry) {
    case 'none':
      return null;
    case 'days':
    case 'months':
      return { kind: 'after', amount: wholeOr(d.amount), unit: d.expiry };
    default:
      return { kind: 'end_of', period: d.expiry };
  }
}

/** The draft's pending period for the admin API; a typed `until` read on `timeZone`'s clock (the wallet's). */
export function pendingOf(d: SettingsDraft, timeZone: string | null): PendingCredits {
  switch (d.pending) {
    case 'none':
      return null;
    case 'days':
      return { days: wholeOr(d.days) };
    case 'until': {
      if (d.savedUntil && d.until === d.savedUntil.local) return { until: d.savedUntil.iso };
      // An empty or unreadable date goes as typed: the API says what is wrong with it.
      return { until: instantIn(d.until, timeZone) ?? d.until };
    }
  }
}

/** The setting in words, for the list. */
export function describeExpiry(e: PointsExpiry): string {
  if (!e) return 'never';
  if (e.kind === 'after') return `${e.amount} ${e.amount === 1 ? e.unit.replace(/s$/, '') : e.unit} after spendable`;
  return `end of ${e.period}`;
}

export function describePending(p: PendingCredits, timeZone: string | null): string {
  if (!p) return 'none';
  if ('days' in p) return `${p.days} ${p.days === 1 ? 'day' : 'days'}`;
  return `until ${formatWhen(p.until, timeZone)}`;
}
