import type { BudgetDraft } from '../../campaign-draft';
import { BUDGET_CAP_WORDS, budgetKeys, fieldWords, WHEN_EXCEEDED_WORDS } from '../../promotion-words';
import { Choice, describedBy, Labelled, type ErrorOf, type SectionProps } from './controls';

/**
 * The campaign's money budget (docs/budgets.md): what it may give away in all, per day, week,
 * month and customer, in the application's currency; what a discount that would go over it gets;
 * and the shares of the total at which someone is notified.
 */
export function BudgetSection({ draft: d, set, err: apiErr, currency }: SectionProps & { currency: string | null }) {
  // A refused budget field, said in plain words.
  const err: ErrorOf = (path, deep) => {
    const message = apiErr(path, deep);
    return message === undefined ? undefined : (fieldWords(path, '') ?? message);
  };
  const b = d.budget;
  const change = (next: Partial<BudgetDraft>) => set({ budget: { ...b, ...next } });
  const amount = currency ?? 'amount';
  return (
    <fieldset>
      <legend>Budget</legend>
      <label className="inline">
        <input type="checkbox" checked={b.enabled} onChange={(e) => change({ enabled: e.target.checked })} /> Set a money budget
      </label>
      {err('budget') && <span className="field-error">{err('budget')}</span>}
      {b.enabled && (
        <>
          <fieldset>
            <legend>Stop when the campaign has given away ({amount}; empty: no cap)</legend>
            <p className="hint">Discounts, cashback and free gifts&apos; worth all count.</p>
            {budgetKeys.map((k) => (
              <Labelled key={k} label={`${BUDGET_CAP_WORDS[k]} (${amount})`} path={`budget.${k}`} err={err}>
                <input
                  inputMode="decimal"
                  value={b.caps[k]}
                  onChange={(e) => change({ caps: { ...b.caps, [k]: e.target.value } })}
                  {...describedBy(err, `budget.${k}`)}
                />
              </Labelled>
            ))}
          </fieldset>
          <Labelled label="When a discount would go over the budget" path="budget.when_exceeded" err={err}>
            <Choice
              value={b.when_exceeded}
              options={Object.entries(WHEN_EXCEEDED_WORDS) as [BudgetDraft['when_exceeded'], string][]}
              onChange={(when_exceeded) => change({ when_exceeded })}
            />
          </Labelled>
          <Labelled label="Notify at (% of the total spent, e.g. 50, 80)" path="budget.notify_at" err={err} deep>
            <input
              value={b.notify_at}
              onChange={(e) => change({ notify_at: e.target.value })}
              {...describedBy((path) => err(path, true), 'budget.notify_at')}
            />
          </Labelled>
        </>
      )}
    </fieldset>
  );
}

/** Loyalty points of the orders redeemed with it (docs/wallets.md "A redeem as the order's report"). */
export function PointsSection({ draft: d, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>Loyalty points</legend>
      <Labelled label="Points multiplier (e.g. 2 for double points; empty: normal points)" path="earning_multiplier" err={err}>
        <input
          inputMode="decimal"
          value={d.earning_multiplier}
          onChange={(e) => set({ earning_multiplier: e.target.value })}
          {...describedBy(err, 'earning_multiplier')}
        />
      </Labelled>
      <p className="hint">
        Orders that use this campaign earn this many times the points in your wallets, when the application earns points on redeemed orders.
        0: no points with it.
      </p>
    </fieldset>
  );
}
