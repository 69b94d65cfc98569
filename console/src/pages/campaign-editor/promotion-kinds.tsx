import { selectorPropertyValues } from '@coupons/client';
import { freshPart, type DiscountDraft, type MetadataKeyRow, type SelectorDraft } from '../../campaign-draft';
import { Choice, describedBy, Labelled, Rows, type ErrorOf } from './controls';
import { metadataFields } from './metadata-keys';
import { Selector } from './selector';

interface Props {
  discount: DiscountDraft;
  change: (change: Partial<DiscountDraft>) => void;
  metadataKeys: MetadataKeyRow[];
  err: ErrorOf;
  currency: string | null;
}

/**
 * Each promotion kind's own fields (docs/campaigns.md "Promotion kinds"), in a promotion manager's
 * words: buy X get Y, a free gift, tiers, a bundle. Percentage, amount off and free shipping have none.
 */
export function PromotionKindFields(props: Props) {
  switch (props.discount.type) {
    case 'buy_x_get_y':
      return <BuyXGetY {...props} />;
    case 'free_gift':
      return <FreeGift {...props} />;
    case 'tiered':
      return <Tiers {...props} />;
    case 'bundle':
      return <Bundle {...props} />;
    default:
      return null;
  }
}

/** A number typed in a labelled input, with the admin API's message for `path` beside it. */
function NumberField({
  label,
  path,
  value,
  onChange,
  err,
  decimal = false,
}: {
  label: string;
  path: string;
  value: string;
  onChange: (value: string) => void;
  err: ErrorOf;
  decimal?: boolean;
}) {
  return (
    <Labelled label={label} path={path} err={err}>
      <input
        inputMode={decimal ? 'decimal' : 'numeric'}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        {...describedBy(err, path)}
      />
    </Labelled>
  );
}

/** Which items: any (or the same as bought) or those an item selector matches. */
function WhichItems({
  label,
  none,
  path,
  name,
  selector,
  onChange,
  metadataKeys,
  err,
}: {
  label: string;
  none: string;
  path: string;
  name: string;
  selector: SelectorDraft;
  onChange: (s: SelectorDraft) => void;
  metadataKeys: MetadataKeyRow[];
  err: ErrorOf;
}) {
  return (
    <>
      <Labelled label={label} path={path} err={err}>
        <Choice
          value={selector.enabled ? 'matching' : 'none'}
          options={[
            ['none', none],
            ['matching', 'items matching…'],
          ]}
          onChange={(v) => onChange({ ...selector, enabled: v === 'matching' })}
        />
      </Labelled>
      {selector.enabled && (
        <Selector
          legend={name}
          name={name}
          path={path}
          fixed
          selector={selector}
          properties={[...selectorPropertyValues, ...metadataFields(metadataKeys, 'item')]}
          onChange={onChange}
          err={err}
        />
      )}
    </>
  );
}

function BuyXGetY({ discount: d, change, metadataKeys, err }: Props) {
  return (
    <fieldset>
      <legend>Buy X get Y</legend>
      <NumberField
        label="Customer buys (how many)"
        path="discount.buy.quantity"
        value={d.buy_quantity}
        onChange={(buy_quantity) => change({ buy_quantity })}
        err={err}
      />
      <WhichItems
        label="Bought items are"
        none="any items"
        path="discount.buy.items"
        name="Bought items"
        selector={d.buy_items}
        onChange={(buy_items) => change({ buy_items })}
        metadataKeys={metadataKeys}
        err={err}
      />
      <NumberField
        label="and gets (how many)"
        path="discount.get.quantity"
        value={d.get_quantity}
        onChange={(get_quantity) => change({ get_quantity })}
        err={err}
      />
      <WhichItems
        label="Discounted items are"
        none="the same items"
        path="discount.get.items"
        name="Discounted items"
        selector={d.get_items}
        onChange={(get_items) => change({ get_items })}
        metadataKeys={metadataKeys}
        err={err}
      />
      <NumberField
        label="at % off (100% = free)"
        path="discount.get.percent_off"
        value={d.percent_off}
        onChange={(percent_off) => change({ percent_off })}
        err={err}
        decimal
      />
      <NumberField
        label="at most (times per order)"
        path="discount.max_repeats"
        value={d.max_repeats}
        onChange={(max_repeats) => change({ max_repeats })}
        err={err}
      />
    </fieldset>
  );
}

function FreeGift({ discount: d, change, err, currency }: Props) {
  const gift = (next: Partial<DiscountDraft['gift']>) => change({ gift: { ...d.gift, ...next } });
  return (
    <fieldset>
      <legend>Free gift</legend>
      <p className="hint">The answer to the shop names the gift, and the shop adds it to the cart free.</p>
      <Labelled label="Gift product id" path="discount.gift.product_id" err={err}>
        <input
          value={d.gift.product_id}
          onChange={(e) => gift({ product_id: e.target.value })}
          required
          {...describedBy(err, 'discount.gift.product_id')}
        />
      </Labelled>
      <Labelled label="Gift SKU (optional)" path="discount.gift.sku" err={err}>
        <input value={d.gift.sku} onChange={(e) => gift({ sku: e.target.value })} {...describedBy(err, 'discount.gift.sku')} />
      </Labelled>
      <Labelled label="Gift name (as customers see it)" path="discount.gift.name" err={err}>
        <input value={d.gift.name} onChange={(e) => gift({ name: e.target.value })} required {...describedBy(err, 'discount.gift.name')} />
      </Labelled>
      <NumberField
        label="Gifts per order"
        path="discount.gift.quantity"
        value={d.gift.quantity}
        onChange={(quantity) => gift({ quantity })}
        err={err}
      />
      <NumberField
        label={`What one gift is worth (${currency ?? 'amount'}; counted in the budget)`}
        path="discount.gift.value"
        value={d.gift.value}
        onChange={(value) => gift({ value })}
        err={err}
        decimal
      />
      <NumberField
        label="Gifts to give away in all (empty: no limit)"
        path="discount.max_gifts"
        value={d.max_gifts}
        onChange={(max_gifts) => change({ max_gifts })}
        err={err}
      />
    </fieldset>
  );
}

function Tiers({ discount: d, change, err, currency }: Props) {
  const amount = currency ?? 'amount';
  const off = d.tier_type === 'percentage' ? '% off' : `${amount} off`;
  return (
    <>
      <Labelled label="Each tier gives" path="discount.tier_type" err={err}>
        <Choice
          value={d.tier_type}
          options={[
            ['percentage', 'a percentage off'],
            ['flat', 'an amount off'],
          ]}
          onChange={(tier_type) => change({ tier_type })}
        />
      </Labelled>
      <Rows
        legend="Tiers (the highest one reached applies)"
        add="Add tier"
        rows={d.tiers}
        onChange={(tiers) => change({ tiers })}
        fresh={() => ({ from: '', value: '' })}
        render={(t, i, set) => (
          <>
            <NumberField
              label={`Tier ${i + 1}: from (${amount})`}
              path={`discount.tiers.${i}.from`}
              value={t.from}
              onChange={(from) => set({ ...t, from })}
              err={err}
              decimal
            />
            <span aria-hidden="true" className="arrow">
              →
            </span>
            <NumberField
              label={`Tier ${i + 1}: ${off}`}
              path={`discount.tiers.${i}.value`}
              value={t.value}
              onChange={(value) => set({ ...t, value })}
              err={err}
              decimal
            />
          </>
        )}
      />
      {err('discount.tiers') && <span className="field-error">{err('discount.tiers')}</span>}
    </>
  );
}

function Bundle({ discount: d, change, metadataKeys, err, currency }: Props) {
  return (
    <>
      <Rows
        legend="Bundle parts (bought together as one set)"
        add="Add part"
        rows={d.bundle}
        onChange={(bundle) => change({ bundle })}
        fresh={freshPart}
        render={(p, i, set) => (
          <div className="part">
            <Selector
              legend={`Part ${i + 1}: items`}
              name={`Part ${i + 1} items`}
              path={`discount.bundle.${i}.items`}
              fixed
              selector={p.items}
              properties={[...selectorPropertyValues, ...metadataFields(metadataKeys, 'item')]}
              onChange={(items) => set({ ...p, items })}
              err={err}
            />
            <NumberField
              label={`Part ${i + 1}: how many`}
              path={`discount.bundle.${i}.quantity`}
              value={p.quantity}
              onChange={(quantity) => set({ ...p, quantity })}
              err={err}
            />
          </div>
        )}
      />
      {err('discount.bundle') && <span className="field-error">{err('discount.bundle')}</span>}
      <NumberField
        label={`Set price (${currency ?? 'amount'}, what one set costs)`}
        path="discount.price"
        value={d.price}
        onChange={(price) => change({ price })}
        err={err}
        decimal
      />
      <NumberField
        label="At most (sets per order)"
        path="discount.max_repeats"
        value={d.max_repeats}
        onChange={(max_repeats) => change({ max_repeats })}
        err={err}
      />
    </>
  );
}
