/**
 * The validator of openapi.yaml (the one source of truth) for tests: real response bodies, and any
 * component schema (the webhook events receivers get), are checked against the spec with ajv's
 * 2020-12 dialect, so the spec cannot drift from the code.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { parse } from 'yaml';
import { openapiPath } from '../../api/ops/docs.router.js';

export const SPEC_ID = 'https://coupons.local/openapi.json';
export const spec = parse(readFileSync(openapiPath(), 'utf8'));
// strict off: the document carries OpenAPI keywords (paths, example, …) that are not JSON Schema.
export const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: under NodeNext its plugin is the default export's `default`.
addFormatsModule.default(ajv);
ajv.addSchema({ ...spec, $id: SPEC_ID });

export const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The spec's JSON pointer to the JSON schema of a response, following a `$ref` response. */
function responseSchemaPointer(method: string, template: string, status: number): string {
  const m = method.toLowerCase();
  const response = spec.paths[template]?.[m]?.responses?.[String(status)];
  if (!response) throw new Error(`openapi.yaml documents no ${status} for ${method} ${template}`);
  const base = response.$ref ?? `#/paths/${escapePointer(template)}/${m}/responses/${status}`;
  const target = response.$ref ? spec.components.responses[response.$ref.split('/').pop()] : response;
  if (!target?.content?.['application/json']) throw new Error(`${method} ${template} ${status} documents no JSON body`);
  return `${base}/content/application~1json/schema`;
}

export const errorsText = (errors: ErrorObject[] | null | undefined) => ajv.errorsText(errors, { separator: '\n  ' });

/** Throws, naming every mismatch, unless `body` is what the spec documents for this response. */
export function assertMatchesSpec(method: string, template: string, status: number, body: unknown, contentType?: string | null): void {
  const pointer = responseSchemaPointer(method, template, status);
  if (contentType !== undefined) expect(contentType ?? '', `${method} ${template} content type`).to.match(/^application\/json\b/);
  const validate = ajv.getSchema(`${SPEC_ID}${pointer}`)!;
  if (!validate(body))
    throw new Error(
      `${method} ${template} ${status} does not match openapi.yaml:\n  ${errorsText(validate.errors)}\n${JSON.stringify(body)}`,
    );
}

/** Throws with ajv's errors when `value` does not match `#/components/schemas/<name>`. */
export function assertMatchesSchema(name: string, value: unknown): void {
  const validate = ajv.getSchema(`${SPEC_ID}#/components/schemas/${name}`);
  if (!validate) throw new Error(`openapi.yaml has no schema ${name}`);
  if (!validate(value)) throw new Error(`${name}: ${errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 500)}`);
}
