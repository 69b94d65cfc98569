import { discountBaseValues } from '@coupons/client';
import type { Draft } from '../../campaign-draft';
import { asOptions, Choice, describedBy, Labelled, type SectionProps } from './controls';

/** What the campaign gives (a discount, or cashback to a wallet), how much, and what it is computed on. */
export function DiscountSection({ draft: d, set, err, wallets }: SectionProps & { wallets: string[] }) {
  const discount = (change: Partial<Draft['discount']>) => set({ discount: { ...d.discount, ...change } });
  return (
    <fieldset>
      <legend>Discount</legend>
      <Labelled label="Kind" path="discount.kind" err={err}>
        <Choice
          value={d.discount.kind}
          options={[
            ['discount', 'discount: lowers the amount to pay'],
            ['cashback', 'cashback: credits a wallet on redeem'],
          ]}
          onChange={(kind) => discount({ kind })}
        />
      </Labelled>
      <Labelled label="Type" path="discount.type" err={err}>
        <Choice
          value={d.discount.type}
          options={[
            ['percentage', 'percentage'],
            ['flat', 'flat amount'],
          ]}
          onChange={(type) => discount({ type })}
        />
      </Labelled>
      <Labelled label={d.discount.type === 'percentage' ? 'Value (%)' : 'Value (amount)'} path="discount.value" err={err}>
        <input
          inputMode="decimal"
          value={d.discount.value}
          onChange={(e) => discount({ value: e.target.value })}
          required
          {...describedBy(err, 'discount.value')}
        />
      </Labelled>
      <Labelled label="At most (amount, empty: no cap)" path="discount.max" err={err}>
        <input
          inputMode="decimal"
          value={d.discount.max}
          onChange={(e) => discount({ max: e.target.value })}
          {...describedBy(err, 'discount.max')}
        />
      </Labelled>
      {d.discount.kind === 'cashback' && (
        <Labelled label="Cashback wallet" path="discount.wallet_id" err={err}>
          <Choice
            value={d.discount.wallet_id}
            options={[['', 'none: report the cashback only'], ...asOptions(wallets)]}
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
        <Choice value={d.base} options={asOptions(discountBaseValues)} onChange={(base) => set({ base })} />
      </Labelled>
    </fieldset>
  );
}
