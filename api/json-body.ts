/**
 * JSON bodies, byte for byte what `JSON.stringify` gives, faster for answers that repeat a frozen
 * part: list answers echo the same item array in most of their coupons (shared/domain/savings.ts
 * freezes and shares it), so that array is serialized and UTF-8 encoded once per request, and its
 * bytes are copied into every coupon that shares it. The body is written straight into one
 * buffer: no 1.6 MB string is built, flattened and encoded again. Everything else is serialized by
 * the engine's `JSON.stringify`.
 */
import { randomBytes } from 'node:crypto';
import type { Response } from 'express';

/** A body in pieces: JSON text, and the ready bytes of shared values. */
type Part = string | Buffer;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One buffer of the parts. */
function concatParts(parts: Part[]): Buffer {
  let size = 0;
  for (const p of parts) size += typeof p === 'string' ? Buffer.byteLength(p) : p.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of parts) at += typeof p === 'string' ? out.write(p, at) : p.copy(out, at);
  return out;
}

/**
 * Stands in for a shared value while the rest of an element is serialized; random per process, so
 * that no client text can be it (an element whose text holds it anywhere else is serialized whole).
 */
const MARK_VALUE = `\u0000shared-${randomBytes(12).toString('hex')}`;
const MARK = JSON.stringify(MARK_VALUE);

/**
 * `JSON.stringify(list)` as UTF-8 bytes, for a list whose elements hold, at `path`, a value that
 * may be frozen and shared between elements: a shared value is serialized and encoded once, and
 * each element around it once (with a stand-in in its place, copying only the objects on the path).
 * Elements without a frozen object at the end of the path are serialized whole.
 */
export function serializeList(list: readonly unknown[], path: readonly string[]): Buffer {
  const shared = new WeakMap<object, Buffer>();
  const bytesOf = (v: object): Buffer => {
    let bytes = shared.get(v);
    if (bytes === undefined) shared.set(v, (bytes = Buffer.from(JSON.stringify(v))));
    return bytes;
  };
  /** `obj` with the value at `path[depth..]` replaced by the stand-in, or null if there is no frozen object there. */
  const withMark = (obj: unknown, depth: number, found: { value?: object }): unknown => {
    if (!isObject(obj)) return null;
    const v = obj[path[depth]!];
    if (depth === path.length - 1) {
      if (typeof v !== 'object' || v === null || !Object.isFrozen(v)) return null;
      found.value = v;
      return { ...obj, [path[depth]!]: MARK_VALUE };
    }
    const inner = withMark(v, depth + 1, found);
    return inner === null ? null : { ...obj, [path[depth]!]: inner };
  };
  const parts: Part[] = ['['];
  list.forEach((e, i) => {
    if (i > 0) parts.push(',');
    const found: { value?: object } = {};
    const marked = withMark(e, 0, found);
    const text = marked === null ? undefined : JSON.stringify(marked);
    const at = text === undefined ? -1 : text.indexOf(MARK);
    if (at < 0 || text!.indexOf(MARK, at + 1) >= 0) parts.push((JSON.stringify(e) as string | undefined) ?? 'null');
    else parts.push(text!.slice(0, at), bytesOf(found.value!), text!.slice(at + MARK.length));
  });
  parts.push(']');
  return concatParts(parts);
}

/** Answers a list as `res.json` would (same bytes, same content type), serialized by {@link serializeList}. */
export function sendList(res: Response, list: readonly unknown[], sharedPath: readonly string[]): void {
  res.type('application/json').send(serializeList(list, sharedPath));
}
