export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Zulip's datetime.isoformat() for UTC: seconds precision with an explicit offset. */
export function isoWithOffset(unixSeconds: number): string {
  // Formatting dates showed up in profiles of user lists; the same few recur.
  let s = isoCache.get(unixSeconds);
  if (s === undefined) {
    if (isoCache.size >= 10_000) isoCache.clear();
    s = new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    isoCache.set(unixSeconds, s);
  }
  return s;
}

const isoCache = new Map<number, string>();
