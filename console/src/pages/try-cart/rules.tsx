import { formatMoney } from '../../money';
import { BASE_WORDS, DISCOUNT_TYPE_WORDS, fieldName, OPERATOR_WORDS } from '../../promotion-words';
import { formatWhen } from '../../when';

/** The rules one promotion was checked against, each with its result and the figures it was decided on. */
export interface RuleCheck {
  rule: string;
  passed: boolean | null;
  text: string;
  figures: Record<string, unknown>;
}

/** How the figures are said: money in the application's currency, instants on its clock. */
export interface Reading {
  currency: string | null;
  timeZone: string | null;
}

const LIMIT_WORDS: Record<string, string> = {
  total: 'Limit in total',
  per_customer: 'Limit per customer',
  per_day: 'Limit per day',
  per_week: 'Limit per week',
  per_month: 'Limit per month',
  per_customer_per_day: 'Limit per customer per day',
  bulk_code: 'Uses of this code',
  max_gifts: 'Gifts given',
};
const RULE_WORDS: Record<string, string> = {
  availability: 'When it applies',
  assignment: 'Who may use it',
  tiers: 'Loyalty tier',
  budget: 'Money budget',
  'budget.amount': 'Budget for this order',
  order: 'The order',
  cart_condition: 'Cart condition',
  selection: 'Items it applies to',
  selected_items_validation: 'Condition on the chosen items',
  product_validation: 'Condition on each item',
  promotion: 'Promotion',
  discount: 'Discount',
  stacking: 'Combining with others',
};

/** A rule of the engine (its stable name, shown on hover) in words. */
export function ruleName(rule: string): string {
  const limit = /^limit\.(.+)$/.exec(rule);
  if (limit) return LIMIT_WORDS[limit[1]!] ?? `Limit: ${limit[1]!.replace(/_/g, ' ')}`;
  return RULE_WORDS[rule] ?? rule;
}

/** Whether a condition's figures are money: its field is a price, a subtotal, the shipping or the tax. */
const moneyField = (field: unknown) => typeof field === 'string' && /price|subtotal|^shipping$|^tax$/.test(field);

/** One figure in words; null when there is nothing to say (not sent, no value). */
export function figureInWords(key: string, value: unknown, figures: Record<string, unknown>, reading: Reading): string | null {
  if (value === null || value === undefined) return null;
  if (key === 'free_gifts' && Array.isArray(value))
    return value
      .map((g: { quantity?: number; name?: string; sku?: string | null; value?: number }) =>
        [
          `${g.quantity ?? 1} × ${g.name ?? '?'}`,
          g.sku ? ` (SKU ${g.sku})` : '',
          typeof g.value === 'number' ? `, worth ${formatMoney(g.value, reading.currency)} each` : '',
        ].join(''),
      )
      .join('; ');
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || v === undefined)) return null;
    return value.map((v) => figureInWords(key, v, figures, reading) ?? '—').join(', ');
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') {
    const money =
      /amount$/.test(key) ||
      ((key === 'value' || key === 'actual') && (figures.type === 'flat' || moneyField(figures.field))) ||
      (key === 'tier_value' && figures.tier_type === 'flat');
    if (money) return formatMoney(value, reading.currency);
    if (key === 'value' && figures.type === 'percentage') return `${value}%`;
    return String(value);
  }
  if (typeof value === 'string') {
    if (key === 'base' && value in BASE_WORDS) return BASE_WORDS[value as keyof typeof BASE_WORDS];
    if (key === 'type' && value in DISCOUNT_TYPE_WORDS) return DISCOUNT_TYPE_WORDS[value as keyof typeof DISCOUNT_TYPE_WORDS];
    if (key === 'field') return fieldName(value);
    if (key === 'operator' && value in OPERATOR_WORDS) return OPERATOR_WORDS[value as keyof typeof OPERATOR_WORDS];
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return formatWhen(value, reading.timeZone);
    return value;
  }
  return JSON.stringify(value);
}

/**
 * What a rule checked, in words: the discount row as what the customer gets on what it is computed
 * on ("Percentage off: 10%, on the order subtotal"); every other rule's text is the engine's, the
 * message validate would give.
 */
export function checkText(c: RuleCheck, reading: Reading): string {
  if (c.rule !== 'discount' || typeof c.figures.type !== 'string') return c.text;
  const type = figureInWords('type', c.figures.type, c.figures, reading) ?? c.figures.type;
  const value =
    c.figures.type === 'percentage' || c.figures.type === 'flat' ? figureInWords('value', c.figures.value, c.figures, reading) : null;
  const base = figureInWords('base', c.figures.base, c.figures, reading);
  return `${type}${value ? `: ${value}` : ''}${base ? `, on ${base.charAt(0).toLowerCase()}${base.slice(1)}` : ''}`;
}

/**
 * A rule's result in words. A condition on a field the order did not send holds (only the two
 * subtotals are required): it was not checked, which is what it says, not "passed".
 */
export function resultOf(c: RuleCheck): string {
  if (c.passed === null) return 'not reached';
  if (c.passed && c.rule === 'cart_condition' && 'actual' in c.figures && c.figures.actual === null) return 'not checked: not sent';
  return c.passed ? 'passed' : 'failed';
}

export function RulesTable({ name, checks, reading }: { name: string; checks: readonly RuleCheck[]; reading: Reading }) {
  return (
    // Scrolls sideways on a phone: focusable, so a keyboard can scroll it too.
    <div className="scroll" tabIndex={0} role="region" aria-label={`Rules of ${name}, scrolls sideways`}>
      <table>
        <caption className="visually-hidden">Rules of {name}</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Result</th>
            <th scope="col">What was checked</th>
            <th scope="col">Figures</th>
          </tr>
        </thead>
        <tbody>
          {checks.map((c, i) => (
            <tr key={i}>
              <td title={c.rule}>{ruleName(c.rule)}</td>
              <td>{resultOf(c)}</td>
              <td>{checkText(c, reading)}</td>
              <td>
                <Figures figures={c.figures} reading={reading} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Figures({ figures, reading }: { figures: Record<string, unknown>; reading: Reading }) {
  const entries = Object.entries(figures).flatMap(([k, v]) => {
    const said = figureInWords(k, v, figures, reading);
    return said === null ? [] : [[k, said] as const];
  });
  if (entries.length === 0) return <>—</>;
  return (
    <dl className="figures">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k.replace(/_/g, ' ')}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
