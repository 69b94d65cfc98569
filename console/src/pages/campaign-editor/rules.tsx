import { cartConditionFieldValues, itemConditionFieldValues, selectedItemsFieldValues, selectorPropertyValues } from '@coupons/client';
import { Conditions } from './conditions';
import type { SectionProps } from './controls';
import { metadataFields } from './metadata-keys';
import { Selector } from './selector';

/**
 * The rules, in the order the engine checks them (docs/campaigns.md): cart conditions, the item
 * selector and its validations, product validations, then the items a valid_cart_* base leaves out.
 * Fields and properties are the campaign format's, and the declared metadata keys of their level.
 */
export function RulesSection({ draft: d, set, err }: SectionProps) {
  const itemProperties = [...selectorPropertyValues, ...metadataFields(d.metadata_keys, 'item')];
  return (
    <>
      <Conditions
        legend="Cart conditions"
        name="Cart condition"
        path="cart_conditions"
        rows={d.cart_conditions}
        fields={[...cartConditionFieldValues, ...metadataFields(d.metadata_keys, 'order')]}
        onChange={(cart_conditions) => set({ cart_conditions })}
        err={err}
      />
      <Selector
        legend="Item selector (the items the discount is for)"
        path="item_selector"
        selector={d.item_selector}
        properties={itemProperties}
        onChange={(item_selector) => set({ item_selector })}
        err={err}
      />
      <Conditions
        legend="Selected items validations (all must hold)"
        name="Selected items validation"
        path="selected_items_validations"
        rows={d.selected_items_validations}
        fields={[...selectedItemsFieldValues]}
        onChange={(selected_items_validations) => set({ selected_items_validations })}
        err={err}
      />
      <Conditions
        legend="Product validations (each item)"
        name="Product validation"
        path="product_validations"
        rows={d.product_validations}
        fields={[...itemConditionFieldValues, ...metadataFields(d.metadata_keys, 'item')]}
        onChange={(product_validations) => set({ product_validations })}
        err={err}
      />
      <Selector
        legend="Excluded items (for valid_cart_* bases)"
        path="excluded_items"
        selector={d.excluded_items}
        properties={itemProperties}
        onChange={(excluded_items) => set({ excluded_items })}
        err={err}
      />
    </>
  );
}
