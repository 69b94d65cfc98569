/**
 * A wallet's tiers (docs/wallets.md "Tiers") in a promotion manager's words: the wallet form's
 * "Tiers" section, the wallets list's sentence, a customer's tier and progress on the customer
 * page, and the campaign editor's choice of levels. The form keeps what was typed (numbers as text)
 * and sends a number where the text is one, the text otherwise, so the admin API — the one place
 * tiers are checked — refuses it with its message beside the level.
 */
import type { Schemas } from '@coupons/client';
import { sentenceOf } from './field-errors';
import { calendarDayIn, dayInWords } from './when';

/** A wallet's tiers: a calendar `period` assessed at its end, or the last `rolling_months` months assessed at every month end; null: none. */
export type WalletTiers = Schemas['Tiers'];
type Tiers = NonNullable<WalletTiers>;
export type TierPeriod = NonNullable<Tiers['period']>;
/** One level; a missing `earning_multiplier` is 1×. */
export type TierLevelSetting = Tiers['levels'][number];
/** A customer's tier in a ledger read (null there when the wallet has no tiers). */
export type CustomerTier = NonNullable<Schemas['CustomerTier']>;

export const ASSESSMENTS = ['none', 'month', 'quarter', 'year', 'rolling'] as const;
export type Assessment = (typeof ASSESSMENTS)[number];
export const ASSESSMENT_LABELS: Record<Assessment, string> = {
  none: 'No tiers',
  month: 'Every calendar month',
  quarter: 'Every calendar quarter',
  year: 'Every calendar year',
  rolling: 'Over the last N months, checked every month',
};

/** A level as typed. */
export interface LevelDraft {
  name: string;
  /** Points earned to reach it; the first level's is 0 whatever is typed. */
  min_points: string;
  /** Its points multiplier (blank: 1×). */
  multiplier: string;
}
export interface TiersDraft {
  assessment: Assessment;
  /** N of "the last N months", as typed. */
  months: string;
  levels: LevelDraft[];
}

const FIRST_LEVEL: LevelDraft = { name: '', min_points: '0', multiplier: '1' };

export function tiersDraftOf(t: WalletTiers): TiersDraft {
  if (!t) return { assessment: 'none', months: '12', levels: [{ ...FIRST_LEVEL }] };
  return {
    assessment: t.period ?? 'rolling',
    months: t.rolling_months !== undefined ? String(t.rolling_months) : '12',
    levels: t.levels.map((l) => ({ name: l.name, min_points: String(l.min_points), multiplier: String(l.earning_multiplier ?? 1) })),
  };
}

/** A number where the text is one; the text otherwise (the API says what is wrong with it). */
const numberOr = (text: string): number =>
  text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : (text as unknown as number);

/** The admin API's `tiers`: null for none. */
export function tiersOf(d: TiersDraft): WalletTiers {
  if (d.assessment === 'none') return null;
  const levels = d.levels.map((l, i) => ({
    name: l.name,
    min_points: i === 0 ? 0 : numberOr(l.min_points),
    earning_multiplier: l.multiplier.trim() === '' ? 1 : numberOr(l.multiplier),
  }));
  return d.assessment === 'rolling' ? { rolling_months: numberOr(d.months), levels } : { period: d.assessment, levels };
}

const grouped = (n: number) => new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(n);
/** "1.5× points". */
export const multiplierInWords = (m: number, plural: string) => `${grouped(m)}× ${plural}`;
const pointsInWords = (n: number, units: { one: string; many: string }) => `${grouped(n)} ${n === 1 ? units.one : units.many}`;

/** How the tiers are assessed, for the list: "every calendar year", "over the last 3 months, checked every month". */
export function assessmentInWords(t: Tiers): string {
  if (t.period) return ASSESSMENT_LABELS[t.period].toLowerCase();
  return `over the last ${t.rolling_months === 1 ? 'month' : `${t.rolling_months} months`}, checked every month`;
}

/** One level for the list: "Gold: from 1,000 points earned, 1.5× points". */
export const levelInWords = (l: TierLevelSetting, i: number, units: { one: string; many: string }) =>
  `${l.name}: ${i === 0 ? 'every customer' : `from ${pointsInWords(l.min_points, units)} earned`}, ${multiplierInWords(l.earning_multiplier ?? 1, units.many)}`;

/** The points window a customer's progress counts, in words: "this year", "in the last 3 months". */
function windowInWords(t: Tiers): string {
  if (t.period) return `this ${t.period}`;
  return t.rolling_months === 1 ? 'this month' : `in the last ${t.rolling_months} months`;
}

/** The sentence under the assessment choice: when a level is reached, how long it is kept, when it can go down. */
export function keepingInWords(assessment: Assessment, months: string): string {
  const earned = 'Points earned count (not the balance: spending and expiry do not lower them; a return takes back what its order earned).';
  switch (assessment) {
    case 'none':
      return 'Customers have no tier in this wallet.';
    case 'rolling': {
      const n = /^\s*\d+\s*$/.test(months) ? `${Number(months)} months` : 'N months';
      return `A customer reaches a level as soon as the points they earned in the last ${n} (this month included) reach it, and keeps it until the end of the next month. At every month end they are assessed again on the last ${n}, and go down when those earned less. ${earned}`;
    }
    default:
      return `A customer reaches a level as soon as the points they earned in the current calendar ${assessment} reach it, and keeps it until the end of the next ${assessment}. At the end of that ${assessment} they are assessed again on the points earned in it, and go down when they earned less. ${earned}`;
  }
}

/**
 * A customer's tier and progress in words: "Gold · 1.5× points · kept until 31 December 2027 ·
 * 3,200 points earned this year · 1,800 more points to Platinum". A level the current window
 * reaches is kept until the end of the next assessment period; one only held from the last
 * assessment, until the end of this one. Days on `timeZone`'s clock (the wallet's).
 */
export function tierInWords(tier: CustomerTier, tiers: Tiers, timeZone: string, units: { one: string; many: string }): string[] {
  const index = tiers.levels.findIndex((l) => l.name === tier.level);
  const parts = [tier.level, multiplierInWords(tier.earning_multiplier, units.many)];
  if (index > 0) {
    const reached = tier.earned_points >= tiers.levels[index]!.min_points;
    const lastDay = calendarDayIn(new Date(new Date(tier.until).getTime() - 1), timeZone);
    const span = tiers.period ? { month: 1, quarter: 3, year: 12 }[tiers.period] : 1;
    const keptTo = reached
      ? (() => {
          // The last day of the next period: day 0 of the month after it.
          const end = new Date(Date.UTC(lastDay.year, lastDay.month + span, 0));
          return { year: end.getUTCFullYear(), month: end.getUTCMonth() + 1, day: end.getUTCDate() };
        })()
      : lastDay;
    parts.push(`kept until ${dayInWords(keptTo)}`);
  }
  parts.push(`${pointsInWords(tier.earned_points, units)} earned ${windowInWords(tiers)}`);
  parts.push(
    tier.next_level ? `${grouped(tier.next_level.points_needed)} more ${units.many} to ${tier.next_level.name}` : 'the highest level',
  );
  return parts;
}

const LEVEL_FIELD_LABELS: Record<string, string> = {
  name: 'Level name',
  min_points: 'Points needed',
  earning_multiplier: 'Points multiplier',
};

/**
 * A refusal the admin API says only in its details (no `fields`): a leading `"tiers.levels[1].min_points"`
 * said with the form's label ("Level 2: points needed must be more than the level before it."); any other text as it is.
 */
export function tiersDetailsInWords(details: string): string {
  const m = /^"tiers\.levels\[(\d+)\]\.(\w+)"/.exec(details);
  if (!m) return details;
  return `Level ${Number(m[1]) + 1}: ${sentenceOf(details, LEVEL_FIELD_LABELS[m[2]!] ?? m[2]!).replace(/^./, (c) => c.toLowerCase())}`;
}

/** The wallet form's "Tiers" section: how they are assessed, each level's fields and its errors in words; add, remove and reorder. */
export function TiersFields({
  draft,
  onChange,
  errors,
  timeZone,
}: {
  draft: TiersDraft;
  onChange: (draft: TiersDraft) => void;
  /** The API's messages by field path (`tiers.levels.1.earning_multiplier`). */
  errors: Record<string, string>;
  /** The wallet's timezone, where months and years are read. */
  timeZone: string | null;
}) {
  const levels = draft.levels;
  const setLevels = (next: LevelDraft[]) => onChange({ ...draft, levels: next });
  const setLevel = (i: number, change: Partial<LevelDraft>) => setLevels(levels.map((l, k) => (k === i ? { ...l, ...change } : l)));
  /** Moves level i to j: the first level always needs 0 points, so a level leaving the top needs its points typed. */
  const move = (i: number, j: number) => {
    const next = [...levels];
    const [moved] = next.splice(i, 1);
    next.splice(j, 0, moved!);
    setLevels(
      next.map((l, k) =>
        k > 0 && (l.min_points.trim() === '0' || l.min_points.trim() === '') && levels.indexOf(l) === 0 ? { ...l, min_points: '' } : l,
      ),
    );
  };
  const errorsOf = (i: number) =>
    Object.entries(errors)
      .filter(([k]) => k === `tiers.levels.${i}` || k.startsWith(`tiers.levels.${i}.`))
      .map(([k, message]) => sentenceOf(message, LEVEL_FIELD_LABELS[k.split('.')[3] ?? ''] ?? `Level ${i + 1}`));
  const monthsError = errors['tiers.rolling_months'];
  const general = Object.entries(errors).filter(([k]) => !/^tiers\.levels\.\d+/.test(k) && k !== 'tiers.rolling_months');
  return (
    <fieldset className={Object.keys(errors).length > 0 ? 'invalid' : undefined}>
      <legend>Tiers</legend>
      <label>
        Levels assessed
        <select value={draft.assessment} onChange={(e) => onChange({ ...draft, assessment: e.target.value as Assessment })}>
          {ASSESSMENTS.map((a) => (
            <option key={a} value={a}>
              {ASSESSMENT_LABELS[a]}
            </option>
          ))}
        </select>
      </label>
      {draft.assessment === 'rolling' && (
        <div className={monthsError ? 'control invalid' : 'control'}>
          <label>
            Number of months (1–24)
            <input
              inputMode="numeric"
              value={draft.months}
              onChange={(e) => onChange({ ...draft, months: e.target.value })}
              aria-invalid={monthsError ? true : undefined}
              aria-describedby={monthsError ? 'field-tiers-months-error' : undefined}
            />
          </label>
          {monthsError && (
            <span id="field-tiers-months-error" className="field-error">
              {sentenceOf(monthsError, 'Number of months')}
            </span>
          )}
        </div>
      )}
      <p className="hint" data-testid="tiers-keeping">
        {keepingInWords(draft.assessment, draft.months)}
        {draft.assessment !== 'none' && ` Months and years are read on the wallet’s clock (${timeZone ?? 'your browser’s timezone'}).`}
      </p>
      {general.length > 0 && (
        <ul className="field-error">
          {general.map(([k, message]) => (
            <li key={k}>{sentenceOf(message, 'Tiers')}</li>
          ))}
        </ul>
      )}
      {draft.assessment !== 'none' && (
        <>
          <p className="hint">Lowest level first; each next level needs more points.</p>
          {levels.map((l, i) => {
            const n = i + 1;
            const messages = errorsOf(i);
            return (
              <div key={i} className="rule" role="group" aria-label={`Level ${n}`}>
                <label>
                  Level name
                  <input
                    value={l.name}
                    maxLength={50}
                    placeholder={i === 0 ? 'Member' : undefined}
                    onChange={(e) => setLevel(i, { name: e.target.value })}
                  />
                </label>
                {i === 0 ? (
                  <p className="hint">Points needed: 0, every customer starts here</p>
                ) : (
                  <label>
                    Points needed (earned in the period)
                    <input inputMode="decimal" value={l.min_points} onChange={(e) => setLevel(i, { min_points: e.target.value })} />
                  </label>
                )}
                <label>
                  Points multiplier (× points; 1: as earned)
                  <input inputMode="decimal" value={l.multiplier} onChange={(e) => setLevel(i, { multiplier: e.target.value })} />
                </label>
                {messages.length > 0 && (
                  <ul className="field-error">
                    {messages.map((m) => (
                      <li key={m}>{m}</li>
                    ))}
                  </ul>
                )}
                <div className="actions">
                  {i > 0 && (
                    <button type="button" onClick={() => move(i, i - 1)}>
                      Move level {n} up
                    </button>
                  )}
                  {i < levels.length - 1 && (
                    <button type="button" onClick={() => move(i, i + 1)}>
                      Move level {n} down
                    </button>
                  )}
                  {levels.length > 1 && (
                    <button type="button" onClick={() => setLevels(levels.filter((_, k) => k !== i))}>
                      Remove level {n}
                    </button>
                  )}
                </div>
              </div>
            );
          })}
          {levels.length < 10 && (
            <button type="button" onClick={() => setLevels([...levels, { name: '', min_points: '', multiplier: '1' }])}>
              Add a level
            </button>
          )}
        </>
      )}
    </fieldset>
  );
}
