/**
 * The best deal (docs/best-deal.md): of the coupons a customer may enter, the combination that
 * takes the most off a cart, under the stacking rules (shared/domain/stacking.ts). Pure: the
 * candidates with their own rules already evaluated (once each) in, the chosen combination and
 * its stack out.
 *
 * A combination is a set of coupons, at most `maxCoupons`, stacked with every automatic promotion
 * after them, exactly as validate and redeem stack `coupon_details` naming them: it is allowed
 * when every coupon of it joins the stack (an automatic promotion the stacking rules leave out is
 * only left out, as redeem does). Best: the largest total discount, then the largest cashback,
 * then fewer coupons, then the coupons that come first in the stacking order ({@link better}).
 *
 * Search: every allowed combination when there are at most {@link EXACT_BUDGET} of them (a pair
 * the combination rules forbid prunes every combination holding it before anything is computed);
 * above, a greedy pass then one-coupon moves ({@link heuristic}): never worse than the best single
 * coupon, not always the best combination.
 */
import type { ParsedOrder } from './order.js';
import { stackEvaluated, stackingOrder, stackingRefusal, type EvaluatedCandidate, type StackResult } from './stacking.js';

/**
 * The exact search runs when the combinations of at most `maxCoupons` of the candidates number at
 * most this many (pairs the rules forbid prune more): any 10 candidates; 11 when `maxCoupons` <= 5,
 * 12 when <= 4, 18 when 3, 44 when 2. Above, the heuristic.
 */
export const EXACT_BUDGET = 1024;

/** Rounds of one-coupon moves the heuristic makes at most after its greedy passes. */
export const HEURISTIC_ROUNDS = 1;

/** How many of the best single coupons the heuristic starts a greedy pass from (and the best one that combines). */
export const GREEDY_STARTS = 3;

/** How many sets of 1 to `max` of `n` candidates there are, counted up to just past {@link EXACT_BUDGET}. */
function combinationCount(n: number, max: number): number {
  let total = 0;
  let c = 1; // C(n, k)
  for (let k = 1; k <= Math.min(n, max) && total <= EXACT_BUDGET; k++) {
    c = (c * (n - k + 1)) / k;
    total += c;
  }
  return total;
}

/** Which search {@link findBestDeal} makes for `n` candidate coupons and `maxCoupons`. */
export const searchFor = (n: number, maxCoupons: number): 'exact' | 'heuristic' =>
  combinationCount(n, Math.max(1, maxCoupons)) <= EXACT_BUDGET ? 'exact' : 'heuristic';

export interface BestDealInput {
  /** The cart, parsed: every evaluation is of it. */
  order: ParsedOrder;
  /** How many coupons one request may carry (the application's `stacking.maxCoupons`). */
  maxCoupons: number;
  /** The coupons the customer may enter, each with its own rules' evaluation on the cart; the applicable ones are the candidates. */
  coupons: readonly EvaluatedCandidate[];
  /** The automatic promotions the cart gets (oldest first), evaluated likewise: stacked with every combination. */
  automatic: readonly EvaluatedCandidate[];
}

export interface BestDeal {
  /** Indexes in `coupons` of the chosen combination, in `coupons`' order (the order to send them in); empty when no coupon applies. */
  chosen: number[];
  /** The stack of the chosen coupons followed by every automatic promotion: what validate and redeem of them compute. */
  stack: StackResult;
  search: 'exact' | 'heuristic';
  /** How many coupons and automatic promotions were candidates: those whose own rules pass on the cart. */
  candidates: number;
  /** How many combinations were computed. */
  computed: number;
}

/** A computed, allowed combination. */
interface Scored {
  /** Candidate indexes (into `coupons`), ascending. */
  set: number[];
  stack: StackResult;
  /** The set's places in the stacking order of every coupon, ascending: the last tie-break. */
  ranks: number[];
}

/** Whether `a` is a better deal than `b` (see the file's header). */
function better(a: Scored, b: Scored): boolean {
  if (a.stack.totalDiscountCents !== b.stack.totalDiscountCents) return a.stack.totalDiscountCents > b.stack.totalDiscountCents;
  if (a.stack.totalCashbackCents !== b.stack.totalCashbackCents) return a.stack.totalCashbackCents > b.stack.totalCashbackCents;
  if (a.set.length !== b.set.length) return a.set.length < b.set.length;
  for (let k = 0; k < a.ranks.length; k++) if (a.ranks[k] !== b.ranks[k]) return a.ranks[k]! < b.ranks[k]!;
  return false;
}

/** The search over one input: candidates, which pairs may go together, and the combinations computed so far. */
class Search {
  readonly candidates: number[];
  /** `compatible[i][j]`: coupons i and j may both join one stack (no shared campaign, no exclusive one, combination rules allow). */
  private readonly compatible: boolean[][];
  private readonly rank: number[];
  private readonly seen = new Map<string, Scored | null>();

  constructor(private readonly input: BestDealInput) {
    const { coupons } = input;
    this.candidates = coupons.flatMap((c, i) => (c.evaluation.applicable ? [i] : []));
    this.compatible = coupons.map((a, i) =>
      coupons.map((b, j) => i !== j && !stackingRefusal(b.campaign, [a.campaign]) && !stackingRefusal(a.campaign, [b.campaign])),
    );
    this.rank = new Array<number>(coupons.length).fill(0);
    stackingOrder(coupons).forEach((i, place) => (this.rank[i] = place));
  }

  get computed(): number {
    return this.seen.size;
  }

  /** Whether coupon `j` may join every coupon of `set`. */
  fits(set: readonly number[], j: number): boolean {
    return set.every((i) => this.compatible[i]![j]);
  }

  /** The combination's stack, or null when one of its coupons would not join (then redeem would refuse it). Computed once per set. */
  score(unsorted: readonly number[]): Scored | null {
    const set = [...unsorted].sort((a, b) => a - b);
    const key = set.join(',');
    if (this.seen.has(key)) return this.seen.get(key)!;
    const stack = stackEvaluated([...set.map((i) => this.input.coupons[i]!), ...this.input.automatic]);
    const allJoin = set.every((_, k) => stack.coupons[k]!.position !== null);
    const scored = allJoin ? { set, stack, ranks: set.map((i) => this.rank[i]!).sort((a, b) => a - b) } : null;
    this.seen.set(key, scored);
    return scored;
  }
}

const pick = (best: Scored | null, next: Scored | null): Scored | null => (next && (!best || better(next, best)) ? next : best);

/** Every allowed combination: sets of pairwise compatible candidates, at most `max` of them, extended in candidate order. */
function exact(search: Search, max: number): Scored | null {
  let best: Scored | null = null;
  const set: number[] = [];
  const extend = (from: number) => {
    for (let k = from; k < search.candidates.length; k++) {
      const j = search.candidates[k]!;
      if (!search.fits(set, j)) continue;
      set.push(j);
      best = pick(best, search.score(set));
      if (set.length < max) extend(k + 1);
      set.pop();
    }
  };
  extend(0);
  return best;
}

/**
 * Greedy, then local moves. Every candidate alone first; then greedy passes, each from one start —
 * the {@link GREEDY_STARTS} best single coupons and the best one that combines with another (an
 * exclusive coupon can be the best single and still lose to a combination) — adding the others in
 * the order of their own saving when they fit and the deal gets better; the best of them goes on to
 * up to {@link HEURISTIC_ROUNDS} rounds of the best one-coupon move (add one, swap one for one not
 * chosen, drop one), each taken only when it makes the deal better. So the answer is never worse
 * than the best single coupon nor than any greedy pass. At most n (singles) + (GREEDY_STARTS + 1)·n
 * (greedy) + HEURISTIC_ROUNDS × (n + k·n + k) combinations are computed, for n candidates and
 * k = maxCoupons.
 */
function heuristic(search: Search, max: number): Scored | null {
  const singles = search.candidates.map((i) => search.score([i])).filter((s): s is Scored => s !== null);
  if (singles.length === 0) return null;
  const bySaving = [...singles].sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  /** The greedy pass from one start: the others added in the order of their own saving when they fit and the deal gets better. */
  const greedyFrom = (start: Scored): Scored => {
    let deal = start;
    for (const single of bySaving) {
      const j = single.set[0]!;
      if (deal.set.includes(j) || deal.set.length >= max || !search.fits(deal.set, j)) continue;
      const next = search.score([...deal.set, j]);
      if (next && better(next, deal)) deal = next;
    }
    return deal;
  };
  // Several starts: the best singles, and the best one that combines with any other — a coupon that
  // applies only on its own can be the best single and still lose to a combination.
  const combinable = bySaving.find((s) => search.candidates.some((j) => j !== s.set[0] && search.fits(s.set, j)));
  const starts = [...new Set([...bySaving.slice(0, GREEDY_STARTS), ...(combinable ? [combinable] : [])])];
  let current = starts.map(greedyFrom).reduce((best, deal) => (better(deal, best) ? deal : best));
  for (let round = 0; round < HEURISTIC_ROUNDS; round++) {
    let best: Scored | null = null;
    const others = search.candidates.filter((j) => !current.set.includes(j));
    for (const j of others) {
      if (current.set.length < max && search.fits(current.set, j)) best = pick(best, search.score([...current.set, j]));
      for (const i of current.set) {
        const rest = current.set.filter((x) => x !== i);
        if (search.fits(rest, j)) best = pick(best, search.score([...rest, j]));
      }
    }
    if (current.set.length > 1) for (const i of current.set) best = pick(best, search.score(current.set.filter((x) => x !== i)));
    if (!best || !better(best, current)) break;
    current = best;
  }
  return current;
}

/** No coupon applies: the automatic promotions alone, the amount to pay the cart's whole when none of them applies either. */
function nothingChosen(input: BestDealInput): StackResult {
  const stack = stackEvaluated(input.automatic);
  return stack.order ? stack : { ...stack, totalAmountCents: input.order.sellingSubtotalCents };
}

/** The best deal for the input (see the file's header). */
export function findBestDeal(input: BestDealInput): BestDeal {
  const search = new Search(input);
  const max = Math.max(1, input.maxCoupons);
  const mode = searchFor(search.candidates.length, max);
  const best = mode === 'exact' ? exact(search, max) : heuristic(search, max);
  return {
    chosen: best?.set ?? [],
    stack: best?.stack ?? nothingChosen(input),
    search: mode,
    candidates: search.candidates.length + input.automatic.filter((a) => a.evaluation.applicable).length,
    computed: search.computed,
  };
}
