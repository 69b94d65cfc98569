/**
 * The campaign format's lists are declared once, as openapi.yaml's enums: the server's module is
 * generated from them (`npm run contract:lists`), the domain's lists are that module's, the admin
 * API's validation accepts exactly them, and docs/campaigns.md names every value.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';
import { contractListsModule, LISTS, OUTPUT, SPEC } from '../../scripts/contract-lists.js';
import * as domain from '../../shared/domain/types.js';
import { createCampaignSchema } from '../../shared/usecases/admin/campaign-format.js';

const specText = readFileSync(SPEC, 'utf8');
const schemas = parse(specText).components.schemas;

/** Each list the domain exports (by the name the generator gives it), beside the spec's schema that declares it. */
const DOMAIN_LISTS = Object.entries(LISTS).map(([schema, name]): [string, readonly string[]] => [schema, domain[name]]);

describe('contract lists: one declaration (openapi.yaml), the server module generated from it', () => {
  it('when shared/domain/contract-lists.generated.ts is read, then it is the one openapi.yaml generates (npm run contract:lists)', async () => {
    expect(readFileSync(OUTPUT, 'utf8')).to.equal(await contractListsModule(specText));
  });

  it("when the domain's lists are compared with openapi.yaml's enums, then each is its schema's enum, in the spec's order", () => {
    for (const [schema, list] of DOMAIN_LISTS) expect([...list], schema).to.deep.equal(schemas[schema].enum);
  });

  it('when a value is added to an enum of the spec, then the generated module has it', async () => {
    const changed = specText.replace(
      'enum: [total, per_customer, per_day, per_week, per_month]',
      'enum: [total, per_customer, per_day, per_week, per_month, per_year]',
    );
    expect(changed).to.not.equal(specText);
    expect(await contractListsModule(changed)).to.include(
      "export const LIMIT_KEYS = ['total', 'per_customer', 'per_day', 'per_week', 'per_month', 'per_year'] as const;",
    );
  });

  it("when the spec's Limits object is read, then its properties are exactly the LimitKey enum", () => {
    expect(Object.keys(schemas.Limits.properties)).to.deep.equal(schemas.LimitKey.enum);
    expect(schemas.Limits.propertyNames).to.deep.equal({ $ref: '#/components/schemas/LimitKey' });
  });

  it("when the admin API's campaign validation is described, then it accepts exactly the spec's values for each list", () => {
    const keys = (createCampaignSchema.describe() as any).keys;
    const metadataPattern = `/${schemas.MetadataField.pattern}/`;
    /** The values a field or property accepts besides `metadata.<key>`, whose pattern is the spec's MetadataField. */
    const listed = (alternatives: any) => {
      expect(alternatives.matches[1].schema.rules[0].args.regex).to.equal(metadataPattern);
      return alternatives.matches[0].schema.allow;
    };
    const selector = keys.item_selector.keys;
    const property = selector.properties.items[0].keys;
    expect(keys.discount_calculated_on_property.allow).to.deep.equal(schemas.DiscountBase.enum);
    expect(listed(keys.cart_conditions.items[0].keys.field)).to.deep.equal(schemas.CartConditionField.enum);
    expect(listed(keys.selected_items_validations.items[0].keys.field)).to.deep.equal(schemas.SelectedItemsField.enum);
    expect(listed(keys.product_validations.items[0].keys.field)).to.deep.equal(schemas.ItemConditionField.enum);
    for (const rule of ['cart_conditions', 'selected_items_validations', 'product_validations'])
      expect(keys[rule].items[0].keys.operator.allow, rule).to.deep.equal(schemas.ConditionOperator.enum);
    expect(selector.match.allow).to.deep.equal(schemas.SelectorMatch.enum);
    expect(listed(property.property)).to.deep.equal(schemas.SelectorProperty.enum);
    expect(property.operator.allow).to.deep.equal(schemas.SelectorOperator.enum);
    expect(Object.keys(keys.limits.keys)).to.deep.equal(schemas.LimitKey.enum);
    expect(keys.metadata_keys.items[0].keys.type.allow).to.deep.equal(schemas.MetadataType.enum);
    expect(keys.metadata_keys.items[0].keys.scope.allow).to.deep.equal(schemas.MetadataScope.enum);
  });

  it('when docs/campaigns.md is read, then it names every value of every list', () => {
    const doc = readFileSync(new URL('../../docs/campaigns.md', import.meta.url), 'utf8');
    for (const [schema, list] of DOMAIN_LISTS) {
      const missing = list.filter((v) => !doc.includes(`\`${v}\``));
      expect(missing, `docs/campaigns.md does not name these ${schema} values`).to.deep.equal([]);
    }
  });
});
