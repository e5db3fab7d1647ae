/** Django's URLValidator, near enough: http(s)/ftp(s) with a dotted host, an IP, or localhost. */
export function isUrl(s: string): boolean {
  if (/\s/.test(s)) return false;
  try {
    const u = new URL(s);
    return ['http:', 'https:', 'ftp:', 'ftps:'].includes(u.protocol) && (u.hostname === 'localhost' || /\.[a-z]{2,}$|^[\d.]+$|^\[/i.test(u.hostname));
  } catch {
    return false;
  }
}
