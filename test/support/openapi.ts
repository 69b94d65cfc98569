/**
 * Validates real bodies against openapi.yaml (the one source of truth), so the spec cannot drift
 * from the code: responses of a route, or any component schema (e.g. the webhook events).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

export const spec = parse(readFileSync('openapi.yaml', 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: under NodeNext its plugin is the default export's `default`.
addFormatsModule.default(ajv);
ajv.addSchema({ ...spec, $id: 'openapi.json' });

const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Throws with ajv's errors when `body` does not match the documented response. */
export function assertMatchesSpec(method: string, pathTemplate: string, status: number, body: unknown): void {
  const responses = spec.paths[pathTemplate]?.[method.toLowerCase()]?.responses;
  if (!responses) throw new Error(`openapi.yaml has no ${method} ${pathTemplate}`);
  const response = responses[String(status)];
  if (!response) throw new Error(`openapi.yaml documents no ${status} for ${method} ${pathTemplate}`);
  const ref = response.$ref
    ? `openapi.json${response.$ref}/content/application~1json/schema`
    : `openapi.json#/paths/${pointer(pathTemplate)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (!validate(body))
    throw new Error(`${method} ${pathTemplate} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
}

/** Throws with ajv's errors when `value` does not match `#/components/schemas/<name>`. */
export function assertMatchesSchema(name: string, value: unknown): void {
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`);
  if (!validate) throw new Error(`openapi.yaml has no schema ${name}`);
  if (!validate(value)) throw new Error(`${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 500)}`);
}
