/**
 * Metadata (docs/decisions.md#19): only keys the campaign declares, with the declared type, are evaluated
 * and echoed; everything else is dropped, never an error. The result is built key by key from
 * the declaration, never by copying what the client sent, so a client's `__proto__`, `$where`
 * or dotted keys cannot reach a response, a prototype or a database query.
 */
import type { MetadataKey, Scalar } from './types.js';

/**
 * Keys refused even when a campaign declares them: they could reach an object's prototype
 * (`__proto__`, `constructor`, `prototype`) or be read as a query operator or path by a
 * document database (`$…`, `a.b`).
 */
export function isSafeMetadataKey(key: string): boolean {
  return key !== '' && key !== '__proto__' && key !== 'constructor' && key !== 'prototype' && !key.includes('$') && !key.includes('.');
}

/** Plain object or null-prototype object (what JSON parsers and query-string parsers produce). */
function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Whether a key declared with `declared` scope is read at `level` (`both` reads at either). */
export const isReadAt = (declared: MetadataKey['scope'], level: 'order' | 'item'): boolean => declared === 'both' || declared === level;

/**
 * The declared metadata of one level: for each key the campaign declares for that level (scope
 * `both` or the level itself), the sent value when it is an own property with the declared
 * `typeof` (numbers also finite).
 *
 * @param sent - the metadata as sent (any value; a non-object yields `{}`)
 * @param keys - the campaign's `metadataKeys`
 * @param scope - `order` for order metadata, `item` for item metadata
 * @returns a fresh plain object holding only declared, well-typed, safe keys
 */
export function declaredMetadata(sent: unknown, keys: readonly MetadataKey[], scope: 'order' | 'item'): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  if (!isRecord(sent)) return out;
  for (const k of keys) {
    if (!isReadAt(k.scope, scope) || !isSafeMetadataKey(k.key) || !Object.prototype.hasOwnProperty.call(sent, k.key)) continue;
    const v = sent[k.key];
    if (typeof v === k.type && (typeof v !== 'number' || Number.isFinite(v))) out[k.key] = v as Scalar;
  }
  return out;
}
