/**
 * Slack people to zerver_userprofile, with the rules of Zulip's slack.py: roles from the
 * owner/admin/restricted flags, Slackbot and bot profiles as bots, emails made up for bots,
 * accounts sharing an email merged into one, `profile.fields` (and phone, skype) as custom
 * profile fields, avatars from the profile's image.
 */
import { ImportError, type Row } from '../source.js';
import { BotType, Role } from '../../lib/roles.js';
import { obj, optStr, str, type Obj } from './json.js';

export interface SlackPerson {
  /** The Zulip user the Slack id became (several ids may share one after a merge). */
  id: number;
  fullName: string;
  /** Slack's short name, which a mention `<@U1|name>` must match. */
  name: string;
}

export interface AvatarSource { userId: number; url: string }

export interface ConvertedUsers {
  zerver_userprofile: Row[];
  zerver_customprofilefield: Row[];
  zerver_customprofilefieldvalue: Row[];
  people: Map<string, SlackPerson>;
  avatars: AvatarSource[];
  emailOf: Map<number, string>;
}

const DEFAULT_TIMEZONE = 'America/New_York';
const NAMED_FIELDS = ['phone', 'skype'];
/** Zulip's SHORT_TEXT and LONG_TEXT field types; values over 50 characters make a field long text. */
const SHORT_TEXT = 1, LONG_TEXT = 2;

/** Zulip's get_user_full_name: active people by real name, the others by their short name. */
export function fullNameOf(user: Obj): string {
  if (user.deleted === false) return optStr(user, 'real_name') || optStr(user, 'name') || '';
  return optStr(user, 'name') ?? '';
}

const isSlackbot = (user: Obj) => fullNameOf(user).toLowerCase() === 'slackbot';

/** Zulip's SlackBotEmail: `<name without "Bot" and spaces>-bot@domain`, numbered on collision, one per bot_id. */
class BotEmails {
  private counts = new Map<string, number>();
  private assigned = new Map<string, string>();
  constructor(private domain: string) {}
  get(profile: Obj, where: string): string {
    const botId = optStr(profile, 'bot_id')!;
    const known = this.assigned.get(botId);
    if (known) return known;
    const name = optStr(profile, 'real_name_normalized') ?? optStr(profile, 'first_name');
    if (name === undefined) throw new ImportError(`Slack export: ${where} is a bot without a name`);
    let email = `${name.replaceAll('Bot', '').replaceAll(' ', '').toLowerCase()}-bot@${this.domain}`;
    const n = this.counts.get(email);
    if (n === undefined) this.counts.set(email, 1);
    else {
      this.counts.set(email, n + 1);
      const at = email.lastIndexOf('@');
      email = `${email.slice(0, at)}-${n + 1}${email.slice(at)}`;
    }
    this.assigned.set(botId, email);
    return email;
  }
}

function roleOf(user: Obj): number {
  let role: number = Role.MEMBER;
  if (user.is_owner === true || user.is_primary_owner === true) role = Role.OWNER;
  else if (user.is_admin === true) role = Role.ADMINISTRATOR;
  if (user.is_restricted === true || user.is_ultra_restricted === true) role = Role.GUEST;
  return role;
}

function timezoneOf(user: Obj): string {
  const tz = optStr(user, 'tz');
  return tz && tz.includes('/') ? tz : DEFAULT_TIMEZONE;
}

/** Zulip's build_avatar_url: an uploaded Slack avatar (avatar_hash), or an integration bot's icon. */
function avatarUrlOf(user: Obj, profile: Obj): string | undefined {
  const hash = optStr(profile, 'avatar_hash');
  const team = optStr(user, 'team_id') ?? optStr(profile, 'team');
  if (hash && team) return `https://ca.slack-edge.com/${team}-${String(user.id)}-${hash}-512`;
  const icon = optStr(profile, 'image_72');
  if (user.is_integration_bot === true && icon && /\.(png|jpe?g|gif|webp)$/i.test(icon.split('?')[0]!)) return icon;
  return undefined;
}

/** The fields of one person: `profile.fields` (id -> {value}) plus phone and skype when the profile has them. */
function customFieldsOf(profile: Obj): [string, string][] {
  const out: [string, string][] = [];
  const fields = obj(profile, 'fields');
  for (const [key, v] of Object.entries(fields ?? {})) {
    if (NAMED_FIELDS.includes(key)) continue;
    out.push([key, typeof (v as Obj | null)?.value === 'string' ? ((v as Obj).value as string) : '']);
  }
  for (const key of NAMED_FIELDS) if (typeof profile[key] === 'string') out.push([key, profile[key] as string]);
  return out;
}

export function convertUsers(users: Obj[], domain: string, now: number, realmId: number): ConvertedUsers {
  const out: ConvertedUsers = {
    zerver_userprofile: [], zerver_customprofilefield: [], zerver_customprofilefieldvalue: [],
    people: new Map(), avatars: [], emailOf: new Map(),
  };
  const botEmails = new BotEmails(domain);
  const byEmail = new Map<string, number>();
  const fieldIds = new Map<string, number>();
  // Slack has one primary owner; Zulip's converter gives them the first id.
  const hasPrimaryOwner = users.some((u) => u.is_primary_owner === true);
  let nextId = hasPrimaryOwner ? 2 : 1;

  users.forEach((user, i) => {
    const where = `users.json entry ${i}`;
    const slackId = str(user, 'id', where);
    const profile = obj(user, 'profile') ?? {};
    const email = emailOf(user, profile, domain, botEmails, `${where} (${slackId})`);
    const fullName = fullNameOf(user);
    const merged = byEmail.get(email.toLowerCase());
    if (merged !== undefined) {
      out.people.set(slackId, { id: merged, fullName, name: optStr(user, 'name') ?? '' });
      return;
    }
    const id = user.is_primary_owner === true ? 1 : nextId++;
    byEmail.set(email.toLowerCase(), id);
    out.emailOf.set(id, email);
    out.people.set(slackId, { id, fullName, name: optStr(user, 'name') ?? '' });

    const avatar = avatarUrlOf(user, profile);
    if (avatar) out.avatars.push({ userId: id, url: avatar });
    const isBot = isSlackbot(user) || user.is_bot === true || user.is_integration_bot === true;
    out.zerver_userprofile.push({
      id, realm: realmId, email, delivery_email: email, full_name: fullName,
      role: roleOf(user), is_active: user.deleted !== true, is_bot: isBot,
      bot_type: isBot ? BotType.GENERIC : null, bot_owner: null, is_mirror_dummy: false,
      timezone: timezoneOf(user), avatar_source: avatar ? 'U' : 'G', avatar_version: 1,
      date_joined: now, last_login: now,
    });

    for (const [key, value] of customFieldsOf(profile)) {
      let field = fieldIds.get(key);
      if (field === undefined) {
        field = fieldIds.size + 1;
        fieldIds.set(key, field);
        out.zerver_customprofilefield.push({
          id: field, realm: realmId, name: NAMED_FIELDS.includes(key) ? key : `Slack custom field ${field}`,
          field_type: SHORT_TEXT, hint: '', field_data: '', order: field,
        });
      }
      if (value === '') continue;
      out.zerver_customprofilefieldvalue.push({
        id: out.zerver_customprofilefieldvalue.length + 1, user_profile: id, field, value, rendered_value: null,
      });
    }
  });
  for (const f of out.zerver_customprofilefield) {
    if (out.zerver_customprofilefieldvalue.some((v) => v.field === f.id && (v.value as string).length > 50)) f.field_type = LONG_TEXT;
  }
  out.zerver_userprofile.sort((a, b) => (a.id as number) - (b.id as number));
  return out;
}

function emailOf(user: Obj, profile: Obj, domain: string, bots: BotEmails, where: string): string {
  const email = optStr(profile, 'email');
  if (email) return email;
  if (optStr(profile, 'bot_id')) return bots.get(profile, where);
  if (isSlackbot(user)) return `imported-slackbot-bot@${domain}`;
  // Zulip's converter takes emails from Slack's API; an export without one gets a local
  // address in the organization's domain, unique as Slack's short names are.
  const name = optStr(user, 'name');
  if (!name) throw new ImportError(`Slack export: ${where} has neither an email nor a name`);
  return `${name}@${domain}`;
}
