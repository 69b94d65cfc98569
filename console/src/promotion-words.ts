/**
 * What a campaign gives and its money budget, in a promotion manager's words: the names the editor
 * offers and the sentences the preview and the campaigns page say. The word maps are keyed by the
 * spec's enums (`Schemas['DiscountType']`, `Schemas['BudgetKey']`), so a value the spec adds fails
 * the type check until it has its words.
 */
import type { Schemas } from '@coupons/client';
import type { Campaign } from './api';
import { formatMoney } from './money';

/** "What the customer gets", in the order the editor offers them. */
export const DISCOUNT_TYPE_WORDS: Record<Schemas['DiscountType'], string> = {
  percentage: 'Percentage off',
  flat: 'Amount off',
  buy_x_get_y: 'Buy X get Y',
  free_gift: 'Free gift',
  tiered: 'Tiered discount (spend more, save more)',
  bundle: 'Bundle price',
  free_shipping: 'Free shipping',
};

/** Each cap of a money budget, as "Stop when the campaign has given away … ". */
export const BUDGET_CAP_WORDS: Record<Schemas['BudgetKey'], string> = {
  total: 'In total',
  per_day: 'In one day',
  per_week: 'In one week',
  per_month: 'In one month',
  per_customer: 'To one customer',
};
export const budgetKeys = Object.keys(BUDGET_CAP_WORDS) as Schemas['BudgetKey'][];

/** What happens to a discount that would pass the budget. */
export const WHEN_EXCEEDED_WORDS: Record<Schemas['BudgetWhenExceeded'], string> = {
  refuse: 'Refuse it',
  cap: 'Give what is left',
};

/** What a discount is computed on, as the editor offers it. */
export const BASE_WORDS: Record<Schemas['DiscountBase'], string> = {
  selling_price_subtotal: 'The order subtotal',
  original_price_subtotal: 'The order subtotal before markdowns',
  shipping: 'The shipping',
  selected_items_selling_price_subtotal: 'The chosen items',
  selected_items_original_price_subtotal: 'The chosen items before markdowns',
  valid_cart_selling_price_subtotal: 'The order without the excluded items',
  valid_cart_original_price_subtotal: 'The order without the excluded items, before markdowns',
};

/** How a condition compares, as a sentence reads it ("The order subtotal is at least 100"). */
export const OPERATOR_WORDS: Record<Schemas['ConditionOperator'], string> = {
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  eq: 'is',
  neq: 'is not',
  in: 'is one of',
  nin: 'is none of',
};

/** How an item selector's test matches. */
export const SELECTOR_OPERATOR_WORDS: Record<Schemas['SelectorOperator'], string> = {
  in: 'is one of',
  eq: 'is',
  nin: 'is none of',
  neq: 'is not',
};

/** The fields a rule may test, by what they are (the order's, an item's, the chosen items'). */
const FIELD_NAMES: Record<Schemas['CartConditionField'] | Schemas['ItemConditionField'] | Schemas['SelectedItemsField'], string> = {
  selling_price_subtotal: 'Order subtotal',
  original_price_subtotal: 'Order subtotal before markdowns',
  shipping: 'Shipping',
  tax: 'Tax',
  payment_mode: 'Payment method',
  items_count: 'Number of different items',
  total_qty: 'Number of items',
  selling_price: 'Item price',
  original_price: 'Item price before markdown',
  cart_qty: 'Item quantity',
  product_id: 'Product id',
  sku: 'SKU',
  name: 'Product name',
  selected_items_total_qty: 'Number of chosen items',
  selected_items_selling_price_subtotal: 'Subtotal of the chosen items',
  selected_items_original_price_subtotal: 'Subtotal of the chosen items before markdowns',
};

/** A field a rule tests, in words: a known field by its name, `metadata.channel` as "Channel (order data)"; anything else as it is. */
export function fieldName(field: string): string {
  const known = (FIELD_NAMES as Record<string, string>)[field];
  if (known) return known;
  const meta = /^metadata\.(.+)$/.exec(field);
  if (meta) return `${meta[1]!.charAt(0).toUpperCase()}${meta[1]!.slice(1).replace(/_/g, ' ')} (shop data)`;
  return field;
}

/** Values with their words, for a select: [value, label] in the values' order. */
export const worded = <T extends string>(values: readonly T[], words: (v: T) => string): [T, string][] => values.map((v) => [v, words(v)]);

/** "A", "A and B", "A, B and C". */
const allOf = (parts: string[]) => (parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`);
const times = (n: number) => (n === 1 ? 'once' : `${n} times`);
const items = (n: number) => (n === 1 ? '1 item' : `${n} items`);

/** The discount of the campaign format (saved, or the editor's body) as far as the sentence reads it. */
type DiscountLike = Partial<Omit<Campaign['discount'], 'kind' | 'type'>> & Pick<Campaign['discount'], 'kind' | 'type'>;

/** What the customer gets, in one sentence: "Buy 2, get 1 of the same items free, at most once per order". */
export function describeDiscount(
  d: DiscountLike,
  currency: string | null | undefined,
  walletName: (walletId: string) => string | undefined = () => undefined,
): string {
  const money = (n: unknown) => (typeof n === 'number' ? formatMoney(n, currency) : String(n ?? '?'));
  const cap = typeof d.max === 'number' ? `, at most ${money(d.max)}` : '';
  const what = ((): string => {
    switch (d.type) {
      case 'percentage':
        return `${d.value ?? '?'}% off${cap}`;
      case 'flat':
        return `${money(d.value)} off${cap}`;
      case 'buy_x_get_y': {
        const off = d.get?.percent_off === 100 ? 'free' : `at ${d.get?.percent_off ?? '?'}% off`;
        const bought = d.buy?.items ? 'of the items chosen' : '';
        const had = d.get?.items ? 'of the items chosen for it' : 'of the same items';
        return `Buy ${d.buy?.quantity ?? '?'}${bought ? ` ${bought}` : ''}, get ${d.get?.quantity ?? '?'} ${had} ${off}, at most ${times(
          d.max_repeats ?? 1,
        )} per order${cap}`;
      }
      case 'free_gift': {
        const g = d.gift;
        const limit = typeof d.max_gifts === 'number' ? `; ${d.max_gifts} to give away in all` : '';
        return `A free gift: ${g?.quantity ?? 1} × ${g?.name || '?'}${g?.value ? ` (worth ${money(g.value)} each)` : ''}${limit}`;
      }
      case 'tiered': {
        const tiers = (d.tiers ?? []).map(
          (t) => `from ${money(t.from)}: ${d.tier_type === 'flat' ? `${money(t.value)} off` : `${t.value}% off`}`,
        );
        return `Spend more, save more — ${tiers.join('; ')}${cap}`;
      }
      case 'bundle': {
        const parts = (d.bundle ?? []).map((p) => items(p.quantity ?? 1));
        return `A set of ${allOf(parts)} for ${money(d.price)}, at most ${times(d.max_repeats ?? 1)} per order`;
      }
      case 'free_shipping':
        return `Free shipping${cap}`;
    }
  })();
  return d.kind === 'cashback' ? `Cashback: ${what}${d.wallet_id ? ` to ${walletName(d.wallet_id) ?? d.wallet_id}` : ''}` : what;
}

/** A money budget in one sentence: "Stops after €500.00 in total and €50.00 in one day; over it: give what is left; …". */
export function describeBudget(b: Campaign['budget'] | undefined, currency: string | null | undefined): string {
  if (!b) return 'No money budget.';
  const caps = budgetKeys
    .filter((k) => typeof b[k] === 'number')
    .map((k) => `${formatMoney(b[k] as number, currency)} ${BUDGET_CAP_WORDS[k].toLowerCase()}`);
  const when = b.when_exceeded === 'cap' ? 'it gives what is left' : 'it is refused';
  const notify = b.notify_at?.length ? ` You are notified at ${allOf(b.notify_at.map((n) => `${n}%`))} of the total spent.` : '';
  return `${caps.length ? `Stops when it has given away ${allOf(caps)}.` : 'A budget with no cap yet.'} A discount that would go over it: ${when}.${notify}`;
}

/** "Gold", "Gold or Platinum", "Silver, Gold or Platinum": as the engine's refusal names them. */
const anyOf = (parts: string[]) => (parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`);

/** The levels a campaign is for, short, for the campaigns list: "Gold or Platinum members only"; '' for every customer. */
export function tierRuleInShort(tiers: Campaign['tiers'] | undefined): string {
  return tiers ? `${anyOf(tiers.levels)} members only` : '';
}

/**
 * Who can use it by loyalty tier, in one sentence: "Only customers at Gold or Platinum in Loyalty
 * points can use it." `walletName` names the wallet (its id when unknown).
 */
export function describeTierRule(tiers: Campaign['tiers'] | undefined, walletName: (walletId: string) => string | undefined): string {
  if (!tiers) return 'Customers at every tier can use it.';
  if (!tiers.wallet_id) return 'Only customers at some tiers: no wallet chosen yet.';
  const wallet = walletName(tiers.wallet_id) ?? tiers.wallet_id;
  if (!tiers.levels.length) return `Only customers at some tiers of ${wallet}: no level chosen yet.`;
  return `Only customers at ${anyOf(tiers.levels)} in ${wallet} can use it.`;
}

const WHOLE = 'Enter a whole number, 1 or more.';
/** What to change, in a promotion manager's words, for each promotion-kind, budget or tier field the admin API refuses (by path; `N` any index). */
const FIELD_WORDS: [RegExp, string | ((tierType: string) => string)][] = [
  [/^discount\.(buy|get)\.quantity$/, WHOLE],
  [/^discount\.max_repeats$/, WHOLE],
  [/^discount\.get\.percent_off$/, 'Enter a percentage above 0, at most 100 (100 = free).'],
  [/^discount\.gift\.product_id$/, "Enter the gift's product id."],
  [/^discount\.gift\.name$/, "Enter the gift's name as customers see it."],
  [/^discount\.gift\.quantity$/, WHOLE],
  [/^discount\.gift\.value$/, 'Enter an amount of 0 or more.'],
  [/^discount\.max_gifts$/, 'Enter a whole number, 1 or more, or leave it empty for no limit.'],
  [/^discount\.tiers$/, 'Give from 1 to 20 tiers, each starting from a different amount.'],
  [/^discount\.tiers\.\d+\.from$/, 'Enter an amount of 0 or more, different from the other tiers.'],
  [/^discount\.tiers\.\d+\.value$/, (t) => (t === 'flat' ? 'Enter an amount above 0.' : 'Enter a percentage above 0, at most 100.')],
  [/^discount\.bundle$/, 'Give from 1 to 10 parts.'],
  [/^discount\.bundle\.\d+\.quantity$/, WHOLE],
  [/^discount\.price$/, "Enter the set's price: an amount of 0 or more."],
  [/^budget\.(total|per_day|per_week|per_month|per_customer)$/, 'Enter an amount above 0, or leave it empty for no cap.'],
  [/^budget\.notify_at$/, 'List whole percentages from 1 to 99, each once, e.g. 50, 80.'],
  [/^tiers\.wallet_id$/, 'Choose a wallet that has tiers.'],
  [/^tiers\.levels(\.\d+)?$/, "Tick one or more of the wallet's levels (only levels it has now)."],
];

/** The plain words for a refused field of a promotion kind, budget or tier rule; undefined: say the API's message. */
export function fieldWords(path: string, tierType: string): string | undefined {
  const found = FIELD_WORDS.find(([pattern]) => pattern.test(path))?.[1];
  return typeof found === 'function' ? found(tierType) : found;
}
