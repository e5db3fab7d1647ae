import type { StreamRow } from '../rows.js';
import { forLevel, presentStream } from './stream.js';

/**
 * A stream as register's `streams` and `never_subscribed` present it, serialised once per
 * row object and feature level. The rows of a realm's active streams are shared and never
 * modified until a change replaces them (reads/streams.ts, realmStreams), so at 2,000
 * streams each register joins strings instead of presenting and serialising every stream.
 */
const byRow = new WeakMap<StreamRow, Map<string, string>>();

function kept(s: StreamRow, key: string, make: () => string): string {
  let forRow = byRow.get(s);
  if (!forRow) byRow.set(s, (forRow = new Map()));
  let json = forRow.get(key);
  if (json === undefined) forRow.set(key, (json = make()));
  return json;
}

/** JSON.stringify(forLevel(presentStream(s, featureLevel), featureLevel)). */
export const streamJson = (s: StreamRow, featureLevel: number): string =>
  kept(s, String(featureLevel), () => JSON.stringify(forLevel(presentStream(s, featureLevel), featureLevel)));

/**
 * A `never_subscribed` entry: the stream's object, then `stream_weekly_traffic: null` and,
 * when given, `subscribers` (keys the stream object never has, so they follow its own).
 */
export function neverSubscribedJson(s: StreamRow, featureLevel: number, subscribers: readonly number[] | undefined): string {
  const json = kept(s, `never:${featureLevel}`, () => `${streamJson(s, featureLevel).slice(0, -1)},"stream_weekly_traffic":null}`);
  return subscribers === undefined ? json : `${json.slice(0, -1)},"subscribers":${idsJson(subscribers)}}`;
}

/**
 * Subscriber lists are shared and never modified while cached (reads/streams.ts,
 * realmSubscriberIds): include_subscribers at 10,000 users serialised 120,000 ids per register.
 */
const idLists = new WeakMap<readonly number[], string>();

function idsJson(ids: readonly number[]): string {
  let json = idLists.get(ids);
  if (json === undefined) idLists.set(ids, (json = JSON.stringify(ids)));
  return json;
}
