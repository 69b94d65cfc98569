/**
 * Metadata (decision 19): only keys the campaign declares, with the declared type, are
 * evaluated and echoed; everything else is dropped. Built key by key from the declaration, so a
 * client's `__proto__`, `$where` or dotted keys can never reach a response or the database.
 */
import type { MetadataKey, Scalar } from './types.js';

export function declaredMetadata(sent: Record<string, unknown>, keys: MetadataKey[], scope: 'order' | 'item'): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  for (const k of keys) {
    if (k.scope !== scope || !Object.prototype.hasOwnProperty.call(sent, k.key)) continue;
    const v = sent[k.key];
    if (typeof v === k.type && (typeof v !== 'number' || Number.isFinite(v))) out[k.key] = v as Scalar;
  }
  return out;
}
