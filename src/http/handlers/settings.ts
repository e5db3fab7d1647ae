import { route, type AuthedRequest, type Route } from '../route.js';
import { Bool, Int, Opt, Str, Type, type ArgsOf } from '../../schemas/params.js';
import { undeclaredNames } from '../args.js';
import { botRequestsRefused } from '../../errors.js';
import { SETTING_RULES, type SettingName } from '../../lib/settings-rules.js';
import { updateSettings } from '../../actions/settings-update.js';
import { confirmEmailChange } from '../../actions/email-change.js';
import { escapeHtml } from '../../markdown/html.js';

const paramOf = (kind: string) => (kind === 'bool' ? Opt(Bool()) : kind === 'int' || kind === 'intIn' ? Opt(Int()) : Opt(Str()));
const SETTINGS_PARAMS = {
  ...(Object.fromEntries(Object.entries(SETTING_RULES).map(([n, rule]) => [n, paramOf(rule.kind)])) as Record<SettingName, ReturnType<typeof paramOf>>),
  full_name: Opt(Str()),
  email: Opt(Str({ description: 'A new address; it changes once confirmed from a mail sent to it' })),
  old_password: Opt(Str()),
  new_password: Opt(Str()),
};

/** Decodes each personal setting passed, by its rule (Zulip's REQ validators and their messages). */
function settingsOf(r: AuthedRequest<ArgsOf<typeof SETTINGS_PARAMS>>): Partial<Record<SettingName, unknown>> {
  const out: Partial<Record<SettingName, unknown>> = {};
  for (const name of Object.keys(SETTING_RULES) as SettingName[]) {
    const v = r.args[name];
    if (v !== undefined) out[name] = v;
  }
  return out;
}

async function changeSettings(r: AuthedRequest<ArgsOf<typeof SETTINGS_PARAMS>>): Promise<Record<string, unknown>> {
  if (r.user.is_bot === 1) throw botRequestsRefused();
  const settings = settingsOf(r);
  // A personal setting only from feature level 163: before it, an unknown parameter as in Zulip 5.
  const early = r.ctx.config.featureLevel < 163 && settings.email_address_visibility !== undefined;
  if (early) delete settings.email_address_visibility;
  await updateSettings(r.ctx, r.realm, r.user, {
    fullName: r.args.full_name, email: r.args.email,
    oldPassword: r.args.old_password, newPassword: r.args.new_password, settings,
  });
  const ignored = [...undeclaredNames(r.args), ...(early ? ['email_address_visibility'] : [])];
  return ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {};
}

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${body}</p></body></html>`;

export const settingsRoutes: Route[] = [
  // PATCH /settings, and the two deprecated paths that Zulip 5 still answers the same way.
  ...['/settings', '/settings/display', '/settings/notifications'].map((path) => route({
    method: 'PATCH', path, auth: 'user', summary: path === '/settings' ? 'Update settings' : 'Update settings (deprecated path)',
    params: SETTINGS_PARAMS,
    answer: Type.Object({ ignored_parameters_unsupported: Type.Optional(Type.Array(Type.String())) }),
    handler: changeSettings,
  })),
  route({
    // The link in the confirmation mail: a page, not an API answer.
    method: 'GET', path: '/accounts/confirm_new_email/:token', prefix: '', auth: 'none', summary: 'Confirm a new email address (the link in its mail)',
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
  }),
];
