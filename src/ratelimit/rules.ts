/**
 * The request budgets, by domain, in Zulip's model (zproject/default_settings.py,
 * DEFAULT_RATE_LIMITING_RULES): each domain is a list of (window in seconds, most uses in
 * that window) rules, and a use is refused when any rule is spent.
 */
export const RATE_LIMIT_DOMAINS = [
  // Every authenticated API request, per user (each API key belongs to one user or bot).
  'api_by_user',
  // Every request that did not authenticate, per source address: public endpoints and
  // requests with a wrong API key.
  'api_by_ip',
  // Failed password sign-ins per account (Zulip's authenticate_by_username).
  'authenticate_by_username',
  // Failed password sign-ins per source address, whatever the account: Zulip has no such
  // domain; without it one password could be tried against every account of a server.
  'authenticate_by_ip',
  // Requests to change one's email address (each mails a link to the new address).
  'email_change_by_user',
  // Zulip's other domains guard what Parley does not serve yet: sign-up and invitation
  // forms (sends_email_by_ip), password reset (password_reset_form_by_email), the push
  // bouncer (api_by_remote_server). They join this list with their endpoints.
] as const;

export type RateLimitDomain = (typeof RATE_LIMIT_DOMAINS)[number];

export interface RateLimitRule {
  windowSecs: number;
  max: number;
}

export type RateLimitRules = Record<RateLimitDomain, RateLimitRule[]>;

const rule = (windowSecs: number, max: number): RateLimitRule => ({ windowSecs, max });

export const DEFAULT_RATE_LIMIT_RULES: RateLimitRules = {
  api_by_user: [rule(60, 200)],
  api_by_ip: [rule(60, 100)],
  authenticate_by_username: [rule(1800, 5)],
  // Ten times an account's budget: an office behind one address still signs in, a
  // password sprayed over many accounts gets 50 tries per half hour instead of thousands.
  authenticate_by_ip: [rule(1800, 50)],
  email_change_by_user: [rule(3600, 2), rule(86400, 5)],
};

/**
 * Overrides in the form `domain=window:max[,window:max...][;domain=...]`, e.g.
 * `api_by_user=60:500;authenticate_by_ip=3600:100` (PARLEY_RATE_LIMITS). A domain with
 * an empty list (`api_by_ip=`) is not limited.
 */
export function parseRateLimitRules(text: string, base: RateLimitRules = DEFAULT_RATE_LIMIT_RULES): RateLimitRules {
  const out: RateLimitRules = { ...base };
  for (const part of text.split(';').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const domain = (eq < 0 ? part : part.slice(0, eq)).trim();
    if (!(RATE_LIMIT_DOMAINS as readonly string[]).includes(domain)) {
      throw new Error(`unknown rate limit domain '${domain}' (known: ${RATE_LIMIT_DOMAINS.join(', ')})`);
    }
    const rules = part.slice(eq + 1).split(',').map((s) => s.trim()).filter(Boolean).map((r) => {
      const m = /^(\d+):(\d+)$/.exec(r);
      if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new Error(`rate limit rule '${r}' for ${domain} must be <seconds>:<requests>, both positive`);
      return rule(Number(m[1]), Number(m[2]));
    });
    out[domain as RateLimitDomain] = rules.sort((a, b) => a.windowSecs - b.windowSecs);
  }
  return out;
}
