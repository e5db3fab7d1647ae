import type { AuthedRequest, Route } from '../route.js';
import { botRequestsRefused } from '../../errors.js';
import { SETTING_RULES, type SettingName } from '../../lib/settings-rules.js';
import { updateSettings } from '../../actions/settings-update.js';
import { confirmEmailChange } from '../../actions/email-change.js';
import { escapeHtml } from '../../markdown/html.js';

const ACCOUNT_PARAMS = ['full_name', 'email', 'old_password', 'new_password'];
const KNOWN = new Set([...ACCOUNT_PARAMS, ...Object.keys(SETTING_RULES)]);

/** Decodes each personal setting passed, by its rule (Zulip's REQ validators and their messages). */
function settingsOf(r: AuthedRequest): Partial<Record<SettingName, unknown>> {
  const out: Partial<Record<SettingName, unknown>> = {};
  for (const [name, rule] of Object.entries(SETTING_RULES) as Array<[SettingName, (typeof SETTING_RULES)[SettingName]]>) {
    if (!r.params.has(name)) continue;
    if (rule.kind === 'bool') out[name] = r.params.optBool(name);
    else if (rule.kind === 'int' || rule.kind === 'intIn') out[name] = r.params.optInt(name);
    else out[name] = r.params.optStr(name);
  }
  return out;
}

async function changeSettings(r: AuthedRequest): Promise<Record<string, unknown>> {
  if (r.user.is_bot === 1) throw botRequestsRefused();
  const settings = settingsOf(r);
  await updateSettings(r.ctx, r.realm, r.user, {
    fullName: r.params.optStr('full_name'), email: r.params.optStr('email'),
    oldPassword: r.params.optStr('old_password'), newPassword: r.params.optStr('new_password'), settings,
  });
  const ignored = r.params.names().filter((n) => !KNOWN.has(n));
  return ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {};
}

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${body}</p></body></html>`;

export const settingsRoutes: Route[] = [
  // PATCH /settings, and the two deprecated paths that Zulip 5 still answers the same way.
  ...['/settings', '/settings/display', '/settings/notifications'].map((path): Route => ({ method: 'PATCH', path, auth: 'user', handler: changeSettings })),
  {
    // The link in the confirmation mail: a page, not an API answer.
    method: 'GET', path: '/accounts/confirm_new_email/:token', prefix: '', auth: 'none',
    handler: async (r) => {
      let result: Awaited<ReturnType<typeof confirmEmailChange>>;
      try {
        result = await confirmEmailChange(r.ctx, r.path.token ?? '');
      } catch (err) {
        const why = err instanceof Error ? err.message : 'This link can no longer be used.';
        void r.reply.status(400).type('text/html; charset=utf-8').send(page('Email address not changed', escapeHtml(why)));
        return {};
      }
      if (!result.ok) {
        void r.reply.status(404).type('text/html; charset=utf-8').send(page('Whoops', 'The confirmation link has expired or been deactivated.'));
      } else {
        void r.reply.type('text/html; charset=utf-8').send(page('Email address changed',
          `The email address for your account has changed from ${escapeHtml(result.oldEmail)} to ${escapeHtml(result.newEmail)}.`));
      }
      return {};
    },
  },
];
