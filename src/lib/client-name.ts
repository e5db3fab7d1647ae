/**
 * The client a request came from, named as Zulip names it: the `client` parameter when
 * given, else the User-Agent's first product token ("ZulipPython/0.8.2 (...)" is
 * "ZulipPython"), "website" for a browser that is not a Zulip app, "Unspecified" without one.
 */
const UA_RE = /^([^/ ]*[^0-9/(]*)(\/([^/ ]*))?([ /].*)?$/;

export function clientName(clientParam: string | undefined, userAgent: string | undefined): string {
  if (clientParam !== undefined && clientParam.trim() !== '') return clientParam.trim().slice(0, 30);
  if (!userAgent) return 'Unspecified';
  const name = (UA_RE.exec(userAgent)?.[1] ?? '').trim();
  if (name === '') return 'Unspecified';
  if (name === 'Mozilla' && !/Zulip/.test(userAgent)) return 'website';
  return name.slice(0, 30);
}

// Zulip's Message.sent_by_human: the apps a person types into. Everything else
// (bots, scripts, plain HTTP, API libraries) is an API client.
const HUMAN_CLIENTS = new Set([
  'zulipandroid', 'zulipios', 'zulipdesktop', 'zulipmobile', 'zulipelectron', 'zulipterminal', 'snipe', 'website', 'ios', 'android',
  'zulipflutter', 'parley', 'parleyweb',
]);

export function isHumanClient(name: string): boolean {
  const n = name.toLowerCase();
  return HUMAN_CLIENTS.has(n) || n.includes('desktop app');
}
