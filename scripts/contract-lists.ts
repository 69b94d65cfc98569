/**
 * `npm run contract:lists`: writes shared/domain/contract-lists.generated.ts — the campaign
 * format's lists as `as const` arrays, from the `enum`s of openapi.yaml's schemas, the one place
 * they are declared. The console gets the same enums from the typed client (client/: its
 * `generate` script). test/unit/contract-lists.spec.ts fails when the file differs from what
 * this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '..');
export const SPEC = join(root, 'openapi.yaml');
export const OUTPUT = join(root, 'shared', 'domain', 'contract-lists.generated.ts');

/** Each list: the spec's schema (under `components.schemas`) → the constant the server knows it by. */
export const LISTS = {
  DiscountBase: 'DISCOUNT_BASES',
  DiscountType: 'DISCOUNT_TYPES',
  BudgetKey: 'BUDGET_KEYS',
  ConditionOperator: 'OPERATORS',
  CartConditionField: 'CART_CONDITION_FIELDS',
  ItemConditionField: 'ITEM_CONDITION_FIELDS',
  SelectedItemsField: 'SELECTED_ITEMS_FIELDS',
  SelectorProperty: 'SELECTOR_PROPERTIES',
  SelectorOperator: 'SELECTOR_OPERATORS',
  SelectorMatch: 'SELECTOR_MATCHES',
  LimitKey: 'LIMIT_KEYS',
  MetadataType: 'METADATA_TYPES',
  MetadataScope: 'METADATA_SCOPES',
  CampaignTrigger: 'CAMPAIGN_TRIGGERS',
} as const;

interface EnumSchema {
  type?: string;
  description?: string;
  enum?: unknown[];
}

/** The enum of `#/components/schemas/<name>`; throws unless it is a list of strings. */
export function enumOf(spec: { components: { schemas: Record<string, EnumSchema> } }, name: string): string[] {
  const values = spec.components.schemas[name]?.enum;
  if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string'))
    throw new Error(`openapi.yaml: #/components/schemas/${name} has no enum of strings`);
  return values;
}

/** The module's text for the spec's text, formatted as `npm run lint` checks it. */
export async function contractListsModule(specText: string): Promise<string> {
  const spec = parse(specText);
  const lists = Object.entries(LISTS).map(([schema, constant]) => {
    const description = (spec.components.schemas[schema] as EnumSchema).description?.trim().replace(/\s+/g, ' ');
    const values = enumOf(spec, schema)
      .map((v) => JSON.stringify(v))
      .join(', ');
    return `/** \`${schema}\`${description ? `: ${description.replaceAll('*/', '* /')}` : ''} */\nexport const ${constant} = [${values}] as const;\n`;
  });
  const text = [
    '// Generated from openapi.yaml by `npm run contract:lists` (test/unit/contract-lists.spec.ts checks it): edit the spec, not this file.',
    '',
    ...lists,
  ].join('\n');
  return format(text, { ...(await resolveConfig(OUTPUT)), filepath: OUTPUT });
}

if (process.argv[1]?.endsWith('contract-lists.ts')) {
  writeFileSync(OUTPUT, await contractListsModule(readFileSync(SPEC, 'utf8')));
  process.stdout.write(`wrote ${OUTPUT.slice(root.length + 1)}\n`);
}
