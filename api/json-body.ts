/**
 * JSON bodies, byte for byte what `JSON.stringify` gives, faster for answers that repeat a frozen
 * part: list answers echo the same item array in most of their coupons (shared/domain/savings.ts
 * freezes and shares it), so that array is serialized once per request and its text spliced into
 * every coupon that shares it. Everything else is serialized by the engine's `JSON.stringify`.
 */
import type { Response } from 'express';

/** `JSON.stringify(obj)` with the value of `key` replaced by the ready JSON `text`, in key order. */
function spliceKey(obj: Record<string, unknown>, key: string, text: string): string {
  const head: Record<string, unknown> = {};
  const tail: Record<string, unknown> = {};
  let before = true;
  for (const k of Object.keys(obj)) {
    if (k === key) before = false;
    else (before ? head : tail)[k] = obj[k];
  }
  const inner = [JSON.stringify(head).slice(1, -1), `${JSON.stringify(key)}:${text}`, JSON.stringify(tail).slice(1, -1)];
  return `{${inner.filter((s) => s !== '').join(',')}}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `JSON.stringify(list)` for a list whose elements hold, at `path`, a value that may be frozen and
 * shared between elements: a shared value is serialized once. Elements without an object at
 * every step of the path are serialized whole.
 */
export function stringifyList(list: readonly unknown[], path: readonly string[]): string {
  const shared = new WeakMap<object, string>();
  const textOf = (v: unknown): string => {
    if (typeof v !== 'object' || v === null || !Object.isFrozen(v)) return JSON.stringify(v);
    let text = shared.get(v);
    if (text === undefined) shared.set(v, (text = JSON.stringify(v)));
    return text;
  };
  const at = (obj: unknown, depth: number): string => {
    const key = path[depth]!;
    const v = isObject(obj) ? obj[key] : undefined;
    if (typeof v !== 'object' || v === null) return JSON.stringify(obj); // nothing to share on this path
    const inner = depth === path.length - 1 ? textOf(v) : at(v, depth + 1);
    return spliceKey(obj as Record<string, unknown>, key, inner);
  };
  return `[${list.map((e) => (e === undefined ? 'null' : at(e, 0))).join(',')}]`;
}

/** Answers a list as `res.json` would (same bytes, same content type), serialized by {@link stringifyList}. */
export function sendList(res: Response, list: readonly unknown[], sharedPath: readonly string[]): void {
  res.type('application/json').send(stringifyList(list, sharedPath));
}
