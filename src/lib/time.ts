export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Zulip's datetime.isoformat() for UTC: seconds precision with an explicit offset. */
export function isoWithOffset(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
