import type { StreamRow } from '../store/rows.js';
import { forLevel, presentStream } from './stream.js';

/**
 * A stream as register's `streams` and `never_subscribed` present it, serialised once per
 * row object and feature level. The rows of a realm's active streams are shared and never
 * modified until a change replaces them (reads/streams.ts, realmStreams), so at 2,000
 * streams each register joins strings instead of presenting and serialising every stream.
 */
const byRow = new WeakMap<StreamRow, Map<number, string>>();

export function streamJson(s: StreamRow, featureLevel: number): string {
  let levels = byRow.get(s);
  if (!levels) byRow.set(s, (levels = new Map()));
  let json = levels.get(featureLevel);
  if (json === undefined) levels.set(featureLevel, (json = JSON.stringify(forLevel(presentStream(s, featureLevel), featureLevel))));
  return json;
}

/**
 * JSON of `{ ...forLevel(presentStream(s)), ...extra }` without presenting the stream: the
 * extra keys, which the stream object never has, follow its own as they would there.
 */
export function streamJsonWith(s: StreamRow, featureLevel: number, extra: Record<string, unknown>): string {
  const json = streamJson(s, featureLevel);
  let tail = '';
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) tail += `,${JSON.stringify(k)}:${JSON.stringify(v)}`;
  return tail === '' ? json : `${json.slice(0, -1)}${tail}}`;
}
