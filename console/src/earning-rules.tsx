/**
 * A wallet's earning rules (docs/wallets.md "Earning rules") in a promotion manager's words: the
 * sentence the wallets page says for each rule, and the rules' part of the wallet form. The form
 * keeps what was typed (numbers as text) and sends a number where the text is one, the text
 * otherwise, so the admin API — the one place rules are checked — refuses it with its message
 * beside the rule. A rule that chooses items (set through the admin API) keeps its choice: the
 * form shows it in words and sends it back unchanged.
 */
import type { Schemas } from '@coupons/client';
import { sentenceOf } from './field-errors';
import { formatMoney } from './money';
import { BASE_WORDS } from './promotion-words';

export type EarningRule = Schemas['EarningRule'];
type Rounding = NonNullable<EarningRule['rounding']>;

const ROUNDING_WORDS: Record<Rounding, string> = { down: 'rounded down', nearest: 'rounded to the nearest', up: 'rounded up' };
type Period = NonNullable<EarningRule['max_per_period']>['period'];
const PERIOD_WORDS: Record<Period, string> = { day: 'a day', week: 'a week (from Monday)', month: 'a month', year: 'a year' };

const ROUND_TO_WORDS: Record<NonNullable<EarningRule['round_to']>, string> = { point: 'whole points', hundredth: 'hundredths' };

/** Bases offered for a new rule: the ones that need no chosen items. */
const OFFERED_BASES = (Object.keys(BASE_WORDS) as Schemas['DiscountBase'][]).filter((b) => !b.startsWith('selected_items_'));

/** One rule as a sentence: "Base points: 1 point per ₹10.00 of the order subtotal, rounded down to whole points; …". */
export function describeEarningRule(r: EarningRule, currency: string | null | undefined, units: { one: string; many: string }): string {
  const base = (BASE_WORDS[r.earned_on ?? 'selling_price_subtotal'] ?? r.earned_on ?? '').toLowerCase();
  const points = `${r.points} ${r.points === 1 ? units.one : units.many}`;
  const parts = [
    `${points} per ${formatMoney(r.per, currency)} of ${base}, ${ROUNDING_WORDS[r.rounding ?? 'down']} to ${ROUND_TO_WORDS[r.round_to ?? 'point']}`,
  ];
  if (r.min_order != null) parts.push(`orders from ${formatMoney(r.min_order, currency)}`);
  if (r.max_per_order != null) parts.push(`at most ${r.max_per_order} ${r.max_per_order === 1 ? units.one : units.many} an order`);
  const cap = r.max_per_period;
  if (cap) parts.push(`at most ${cap.points} ${cap.points === 1 ? units.one : units.many} ${PERIOD_WORDS[cap.period]} per customer`);
  return `${r.name}: ${parts.join('; ')}`;
}

/** A rule as typed. */
export interface RuleDraft {
  name: string;
  earned_on: Schemas['DiscountBase'];
  points: string;
  per: string;
  rounding: Rounding;
  round_to: NonNullable<EarningRule['round_to']>;
  min_order: string;
  max_per_order: string;
  /** At most this many points per customer in each period (blank: no cap). */
  max_per_period: string;
  period: Period;
  /** Kept as the API gave them (set through the admin API). */
  item_selector: EarningRule['item_selector'] | null;
  excluded_items: EarningRule['excluded_items'] | null;
}

export const draftsOf = (rules: EarningRule[] | null | undefined): RuleDraft[] =>
  (rules ?? []).map((r) => ({
    name: r.name,
    earned_on: r.earned_on ?? 'selling_price_subtotal',
    points: String(r.points),
    per: String(r.per),
    rounding: r.rounding ?? 'down',
    round_to: r.round_to ?? 'point',
    min_order: r.min_order == null ? '' : String(r.min_order),
    max_per_order: r.max_per_order == null ? '' : String(r.max_per_order),
    max_per_period: r.max_per_period == null ? '' : String(r.max_per_period.points),
    period: r.max_per_period?.period ?? 'month',
    item_selector: r.item_selector ?? null,
    excluded_items: r.excluded_items ?? null,
  }));

const NEW_RULE: RuleDraft = {
  name: '',
  earned_on: 'selling_price_subtotal',
  points: '1',
  per: '',
  rounding: 'down',
  round_to: 'point',
  min_order: '',
  max_per_order: '',
  max_per_period: '',
  period: 'month',
  item_selector: null,
  excluded_items: null,
};

/** A number where the text is one; the text otherwise (the API says what is wrong with it). */
const numberOr = (text: string) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

/** The admin API's `earning_rules`: null for none. */
export function rulesOf(drafts: RuleDraft[]): unknown[] | null {
  if (drafts.length === 0) return null;
  return drafts.map((d) => ({
    name: d.name,
    earned_on: d.earned_on,
    item_selector: d.item_selector,
    excluded_items: d.excluded_items,
    points: numberOr(d.points),
    per: numberOr(d.per),
    rounding: d.rounding,
    round_to: d.round_to,
    min_order: d.min_order.trim() === '' ? null : numberOr(d.min_order),
    max_per_order: d.max_per_order.trim() === '' ? null : numberOr(d.max_per_order),
    max_per_period: d.max_per_period.trim() === '' ? null : { points: numberOr(d.max_per_period), period: d.period },
  }));
}

const FIELD_LABELS: Record<string, string> = {
  name: 'Rule name',
  points: 'Points',
  per: 'Per amount',
  min_order: 'Orders from',
  max_per_order: 'At most per order',
  max_per_period: 'At most per customer',
  item_selector: 'Chosen items',
  excluded_items: 'Excluded items',
};

/** The rules' fieldset of the wallet form: each rule's fields, its errors in words, add and remove. */
export function EarningRulesFields({
  drafts,
  onChange,
  currency,
  errors,
}: {
  drafts: RuleDraft[];
  onChange: (drafts: RuleDraft[]) => void;
  currency: string | null | undefined;
  /** The API's messages by field path (`earning_rules.0.per`). */
  errors: Record<string, string>;
}) {
  const set = (i: number, change: Partial<RuleDraft>) => onChange(drafts.map((d, k) => (k === i ? { ...d, ...change } : d)));
  const errorsOf = (i: number) =>
    Object.entries(errors)
      .filter(([k]) => k === `earning_rules.${i}` || k.startsWith(`earning_rules.${i}.`))
      .map(([k, message]) => sentenceOf(message, FIELD_LABELS[k.split('.')[2] ?? ''] ?? `Earning rule ${i + 1}`));
  return (
    <fieldset className={Object.keys(errors).some((k) => k.startsWith('earning_rules')) ? 'invalid' : undefined}>
      <legend>Earning rules</legend>
      <p className="hint">
        What an order earns when your shop reports it completed; an order earns the sum of the rules. A change applies to orders reported
        after it is saved.
      </p>
      {drafts.length === 0 && <p>No earning rules: orders earn nothing here.</p>}
      {drafts.map((d, i) => {
        const n = i + 1;
        const messages = errorsOf(i);
        const bases = OFFERED_BASES.includes(d.earned_on) ? OFFERED_BASES : [...OFFERED_BASES, d.earned_on];
        return (
          <div key={i} className="rule" role="group" aria-label={`Earning rule ${n}`}>
            <label>
              Rule name
              <input value={d.name} maxLength={200} onChange={(e) => set(i, { name: e.target.value })} />
            </label>
            <label>
              Points
              <input inputMode="decimal" value={d.points} onChange={(e) => set(i, { points: e.target.value })} />
            </label>
            <label>
              Per amount ({currency ?? 'the wallet’s currency'})
              <input inputMode="decimal" value={d.per} onChange={(e) => set(i, { per: e.target.value })} />
            </label>
            <label>
              Of
              <select value={d.earned_on} onChange={(e) => set(i, { earned_on: e.target.value as RuleDraft['earned_on'] })}>
                {bases.map((b) => (
                  <option key={b} value={b}>
                    {BASE_WORDS[b].toLowerCase()}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Rounding
              <select value={d.rounding} onChange={(e) => set(i, { rounding: e.target.value as Rounding })}>
                {(Object.keys(ROUNDING_WORDS) as Rounding[]).map((r) => (
                  <option key={r} value={r}>
                    {ROUNDING_WORDS[r]}
                  </option>
                ))}
              </select>
            </label>
            <label>
              To
              <select value={d.round_to} onChange={(e) => set(i, { round_to: e.target.value as RuleDraft['round_to'] })}>
                {(Object.keys(ROUND_TO_WORDS) as RuleDraft['round_to'][]).map((r) => (
                  <option key={r} value={r}>
                    {ROUND_TO_WORDS[r]}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Orders from ({currency ?? 'the wallet’s currency'}; blank: any order)
              <input inputMode="decimal" value={d.min_order} onChange={(e) => set(i, { min_order: e.target.value })} />
            </label>
            <label>
              At most per order (points; blank: no cap)
              <input inputMode="decimal" value={d.max_per_order} onChange={(e) => set(i, { max_per_order: e.target.value })} />
            </label>
            <label>
              At most per customer (points; blank: no cap)
              <input inputMode="decimal" value={d.max_per_period} onChange={(e) => set(i, { max_per_period: e.target.value })} />
            </label>
            <label>
              Cap period
              <select value={d.period} onChange={(e) => set(i, { period: e.target.value as Period })}>
                {(Object.keys(PERIOD_WORDS) as Period[]).map((p) => (
                  <option key={p} value={p}>
                    {PERIOD_WORDS[p]}
                  </option>
                ))}
              </select>
            </label>
            {(d.item_selector || d.excluded_items) && (
              <p className="hint">This rule chooses its items through the admin API; they are kept as they are.</p>
            )}
            {messages.length > 0 && (
              <ul className="field-error">
                {messages.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            )}
            <button type="button" onClick={() => onChange(drafts.filter((_, k) => k !== i))}>
              Remove earning rule {n}
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...drafts, { ...NEW_RULE }])}>
        Add an earning rule
      </button>
    </fieldset>
  );
}
