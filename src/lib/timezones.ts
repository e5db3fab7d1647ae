/**
 * Time zone names a user may set: the IANA database as this Node's ICU has it, in the
 * spellings the database uses (Zulip checks against pytz's list, which also holds the
 * old aliases such as `US/Eastern` and `UTC`). Names are case-sensitive, as there.
 */
const canonical = new Set(Intl.supportedValuesOf('timeZone'));
const SPELLING = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z0-9][A-Za-z0-9_+-]*)*$/;

export function isTimezone(name: string): boolean {
  if (canonical.has(name)) return true;
  if (!SPELLING.test(name)) return false;
  try {
    // ICU knows the database's aliases; an unknown name is a RangeError.
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
