import { discountBaseValues } from '@coupons/client';
import { takesValue, type DiscountDraft } from '../../campaign-draft';
import { BASE_WORDS, DISCOUNT_TYPE_WORDS, fieldWords, worded } from '../../promotion-words';
import { Choice, describedBy, Labelled, type ErrorOf, type SectionProps } from './controls';
import { PromotionKindFields } from './promotion-kinds';

/** Promotion kinds that only lower the amount to pay (the admin API refuses them as cashback). */
const DISCOUNT_ONLY = new Set<DiscountDraft['type']>(['free_gift', 'free_shipping']);

/**
 * What the campaign gives: a discount or cashback to a wallet, and what the customer gets — a
 * percentage or an amount off, or a promotion kind with its own fields — and what it is computed on.
 */
export function DiscountSection({
  draft: d,
  set,
  err,
  wallets,
  currency,
}: SectionProps & { wallets: [string, string][]; currency: string | null }) {
  const discount = (change: Partial<DiscountDraft>) => set({ discount: { ...d.discount, ...change } });
  const type = d.discount.type;
  const chooseType = (next: DiscountDraft['type']) => {
    // Free shipping is computed on the shipping (and leaving it, on the cart again); free gifts and free shipping are discounts, never cashback.
    set({
      discount: { ...d.discount, type: next, ...(DISCOUNT_ONLY.has(next) ? { kind: 'discount' as const } : {}) },
      ...(next === 'free_shipping'
        ? { base: 'shipping' as const }
        : type === 'free_shipping' && d.base === 'shipping'
          ? { base: 'selling_price_subtotal' as const }
          : {}),
    });
  };
  const amount = currency ?? 'amount';
  // A promotion kind's refused field, said in plain words (the API's message when there are none).
  const said: ErrorOf = (path, deep) => {
    const message = err(path, deep);
    return message === undefined ? undefined : (fieldWords(path, d.discount.tier_type) ?? message);
  };
  return (
    <fieldset>
      <legend>Discount</legend>
      <Labelled label="What the customer gets" path="discount.type" err={err}>
        <Choice
          value={type}
          options={Object.entries(DISCOUNT_TYPE_WORDS) as [DiscountDraft['type'], string][]}
          onChange={chooseType}
          {...describedBy(err, 'discount.type')}
        />
      </Labelled>
      <Labelled label="Kind" path="discount.kind" err={err}>
        <Choice
          value={d.discount.kind}
          disabled={DISCOUNT_ONLY.has(type)}
          options={[
            ['discount', 'discount: lowers the amount to pay'],
            ['cashback', 'cashback: credits a wallet on redeem'],
          ]}
          onChange={(kind) => discount({ kind })}
          {...describedBy(err, 'discount.kind')}
        />
      </Labelled>
      {takesValue(type) && (
        <Labelled label={type === 'percentage' ? 'Value (%)' : `Value (${amount})`} path="discount.value" err={err}>
          <input
            inputMode="decimal"
            value={d.discount.value}
            onChange={(e) => discount({ value: e.target.value })}
            required
            {...describedBy(err, 'discount.value')}
          />
        </Labelled>
      )}
      <PromotionKindFields discount={d.discount} change={discount} metadataKeys={d.metadata_keys} err={said} currency={currency} />
      {type !== 'free_gift' && (
        <Labelled label={`At most (${amount}, empty: no cap)`} path="discount.max" err={err}>
          <input
            inputMode="decimal"
            value={d.discount.max}
            onChange={(e) => discount({ max: e.target.value })}
            {...describedBy(err, 'discount.max')}
          />
        </Labelled>
      )}
      {d.discount.kind === 'cashback' && (
        <Labelled label="Cashback wallet" path="discount.wallet_id" err={err}>
          <Choice
            value={d.discount.wallet_id}
            options={[['', 'none: report the cashback only'], ...wallets]}
            onChange={(wallet_id) => discount({ wallet_id })}
            {...describedBy(err, 'discount.wallet_id')}
          />
        </Labelled>
      )}
      {d.discount.kind === 'cashback' && (
        <Labelled label="Cashback pending (days; empty: the wallet's setting)" path="discount.pending" err={err}>
          <input
            inputMode="numeric"
            value={d.discount.pending_days}
            placeholder={d.discount.pending_until ? `until ${d.discount.pending_until}` : ''}
            onChange={(e) => discount({ pending_days: e.target.value })}
            {...describedBy(err, 'discount.pending')}
          />
        </Labelled>
      )}
      <Labelled label="Computed on" path="discount_calculated_on_property" err={err}>
        <Choice
          value={d.base}
          options={worded(discountBaseValues, (b) => BASE_WORDS[b])}
          onChange={(base) => set({ base })}
          {...describedBy(err, 'discount_calculated_on_property')}
        />
      </Labelled>
      {type === 'free_shipping' && <p className="hint">Free shipping takes the shipping off: it is computed on the shipping.</p>}
      {type === 'tiered' && <p className="hint">The tiers&apos; thresholds are read on what it is computed on.</p>}
    </fieldset>
  );
}
