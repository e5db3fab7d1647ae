/**
 * Serialisations of shared values that never change once built, made once and reused:
 * register's user lists (src/reads/register/index.ts) are the same objects for every
 * register of an organization until a user changes, and at 1,000 users serialising them
 * was a large part of each register's answer.
 */
const shareable = new WeakSet<object>();
const serialized = new WeakMap<object, string>();
/** serializedValue's stand-ins: each made for one answer. */
const standIns = new WeakSet<object>();

/** Marks `value` as shared and frozen in practice: its JSON may be kept for as long as it lives. */
export function shareSerialization<T extends object>(value: T): T {
  shareable.add(value);
  return value;
}

/**
 * A stand-in for a value already serialised as `json` (the presence answer, say):
 * stringifyWithShared writes `json` where it appears. Only for answers serialised that way.
 */
export function serializedValue(json: string): object {
  const v = {};
  shareable.add(v);
  standIns.add(v);
  serialized.set(v, json);
  return v;
}

/** withEntry's stand-ins: a shared list with one entry replaced. */
const replaced = new WeakMap<object, { list: readonly object[]; index: number; entry: object }>();

/**
 * A shared list with its entry at `index` replaced by `entry` (the viewer's own user, whose
 * address the list shared by their class hides), serialised from the list's kept bytes:
 * copying the list made each such register serialise 10,000 users.
 */
export function withEntry(list: readonly object[], index: number, entry: object): object {
  const v = {};
  shareable.add(v);
  standIns.add(v);
  replaced.set(v, { list, index, entry });
  return v;
}

/** A shared list's bytes with where each entry's begin and end, for withEntry. */
const entryBytes = new WeakMap<object, { bytes: Buffer; bounds: number[] }>();

function replacedBytes(r: { list: readonly object[]; index: number; entry: object }): Buffer {
  let kept = entryBytes.get(r.list);
  if (!kept) {
    // As JSON.stringify writes an array of objects: entries joined by commas in brackets.
    const parts = r.list.map((e) => JSON.stringify(e));
    const bounds: number[] = [];
    let at = 1;
    for (const p of parts) {
      const n = Buffer.byteLength(p);
      bounds.push(at, at + n);
      at += n + 1;
    }
    kept = { bytes: Buffer.from(`[${parts.join(',')}]`), bounds };
    entryBytes.set(r.list, kept);
  }
  const [start, end] = [kept.bounds[2 * r.index]!, kept.bounds[2 * r.index + 1]!];
  return Buffer.concat([kept.bytes.subarray(0, start), Buffer.from(JSON.stringify(r.entry)), kept.bytes.subarray(end)]);
}

function stringifyValue(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object' || !shareable.has(v)) return JSON.stringify(v);
  const r = replaced.get(v);
  if (r) return JSON.stringify(r.list.map((e, i) => (i === r.index ? r.entry : e)));
  let json = serialized.get(v);
  if (json === undefined) serialized.set(v, (json = JSON.stringify(v)));
  return json;
}

/** JSON.stringify(obj) for a plain object, with shared values' serialisations reused. */
export function stringifyWithShared(obj: Record<string, unknown>): string {
  let out = '{';
  for (const key of Object.keys(obj)) {
    const json = stringifyValue(obj[key]);
    // As JSON.stringify: undefined (and functions) leave their key out.
    if (json === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${json}`;
  }
  return `${out}}`;
}

const encoded = new WeakMap<object, Buffer>();

/**
 * stringifyWithShared's answer as UTF-8 bytes, with each shared value's bytes made once: at
 * 10,000 users register's answer is 7 MB, and encoding it whole (after flattening the string
 * it was joined into) took a fifth of its CPU. Shared values' strings are then not kept.
 */
export function bytesWithShared(obj: Record<string, unknown>): Buffer {
  const parts: Buffer[] = [];
  let pending = '{';
  let first = true;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    const shared = v !== null && typeof v === 'object' && shareable.has(v);
    const json = shared ? undefined : JSON.stringify(v);
    if (!shared && json === undefined) continue;
    pending += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (json !== undefined) {
      pending += json;
      continue;
    }
    const o = v as object;
    let bytes = encoded.get(o);
    if (bytes === undefined) {
      const r = replaced.get(o);
      bytes = r ? replacedBytes(r) : Buffer.from(serialized.get(o) ?? JSON.stringify(o));
      // A stand-in's JSON is made for one answer: encoded, not kept.
      if (!standIns.has(o)) encoded.set(o, bytes);
    }
    parts.push(Buffer.from(pending), bytes);
    pending = '';
  }
  parts.push(Buffer.from(`${pending}}`));
  return Buffer.concat(parts);
}
