/**
 * Redis stream entry ids ("<ms>-<seq>") in order. Ids are compared as numbers: as strings
 * "999-0" would sort after "1000-0".
 */
export function compareIds(a: string, b: string): number {
  const [am, as] = split(a);
  const [bm, bs] = split(b);
  return am !== bm ? (am < bm ? -1 : 1) : as === bs ? 0 : as < bs ? -1 : 1;
}

function split(id: string): [number, number] {
  const dash = id.indexOf('-');
  return dash < 0 ? [Number(id), 0] : [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}

/** The id before which nothing was ever added: where a node starts when the stream is new. */
export const STREAM_START = '0-0';
