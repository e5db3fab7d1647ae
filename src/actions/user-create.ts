import type { Tx } from './transaction.js';
import type { RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { doAddSubscriptions } from './subscription-add.js';
import { users } from '../store/repos/users.js';
import { realms } from '../store/repos/realms.js';
import { streams } from '../store/repos/streams.js';
import { recipients } from '../store/repos/recipients.js';
import { RecipientType } from '../lib/recipient-type.js';
import { badRequest } from '../errors.js';
import { generateApiKey, hashPassword } from '../lib/secrets.js';
import { nowSeconds } from '../lib/time.js';
import { Role } from '../lib/roles.js';
import { notifyRealmUser, personForEvent } from './user-notify.js';
import { PER_USER_EMAIL_VISIBILITY_LEVEL, dummyEmail, emailVisibilityOf } from '../presenters/user.js';
import { subscribeToDefaultStreams } from './default-streams.js';
import { MAX_NAME_LENGTH } from '../lib/limits.js';
import { isValidEmail } from '../lib/email.js';
import { storedRealmUserDefaults } from '../lib/user-settings.js';
import { checkNameUnique } from './unique-names.js';
import { doAddNewUserHistory, queueWelcomeMessage } from './welcome.js';
import { doSyncSystemGroups } from './system-groups.js';

export function checkFullName(name: string): string {
  const n = name.trim();
  if (n.length > MAX_NAME_LENGTH) throw badRequest('Name too long!');
  if (n.length < 1) throw badRequest('Name too short!');
  // Control characters and Zulip's mention syntax characters would break rendering.
  if (/[\u0000-\u001f\u007f*`\\>"@]/.test(n)) throw badRequest('Invalid characters in name!');
  return n;
}

export function checkEmail(email: string): string {
  const e = email.trim();
  // Zulip's create_user_backend answers Django's validate_email failing with this message.
  if (!isValidEmail(e)) throw badRequest('Bad name or username');
  return e;
}

export interface CreateUserInput {
  email: string;
  fullName: string;
  password?: string | undefined;
  role?: number;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  timezone?: string;
  /** The streams an invitation names: joined instead of the organization's default streams (Zulip's prereg_user.streams). */
  streams?: StreamRow[];
  /**
   * An invitation's include_realm_default_subscriptions (feature level 261): the default
   * streams too, or only `streams` (maybe none). Left out: Zulip 5's rule above.
   */
  withDefaults?: boolean;
}

export async function doCreateUser(tx: Tx, realm: RealmRow, input: CreateUserInput): Promise<UserRow> {
  const email = checkEmail(input.email);
  const fullName = checkFullName(input.fullName);
  // The second lookup finds another user's stand-in address (level 163), which holds the unique `email` column.
  if (await users.findByDeliveryEmail(tx.db, realm.id, email) || await users.findByEmail(tx.db, realm.id, email)) {
    throw badRequest(`Email '${email}' already in use`);
  }
  await checkNameUnique(tx, realm.id, fullName);
  // Callers may hold a realm row from before a settings change; new users follow the current one.
  const current = (await realms.findById(tx.db, realm.id)) ?? realm;
  const id = await users.insert(tx.db, {
    realm_id: realm.id,
    email,
    email_lower: email.toLowerCase(),
    delivery_email: email,
    full_name: fullName,
    password_hash: input.password ? await hashPassword(input.password) : null,
    api_key: generateApiKey(),
    role: input.role ?? Role.MEMBER,
    is_active: 1,
    is_bot: input.isBot ? 1 : 0,
    bot_type: input.isBot ? (input.botType ?? 1) : null,
    bot_owner_id: input.isBot ? (input.botOwnerId ?? null) : null,
    is_billing_admin: 0,
    timezone: input.timezone ?? '',
    date_joined: nowSeconds(),
    avatar_source: 'G',
    avatar_version: 1,
    // As Zulip's copy_default_settings: the organization's defaults become the user's own.
    settings: JSON.stringify(storedRealmUserDefaults(current.settings, tx.featureLevel)),
  });
  // A personal recipient makes the user addressable by private messages.
  await recipients.insert(tx.db, RecipientType.PERSONAL, id);
  let user = (await users.findById(tx.db, id))!;
  // From feature level 163 a user hiding their address shows the dummy one from the start (Zulip's create_user_profile).
  if (tx.featureLevel >= PER_USER_EMAIL_VISIBILITY_LEVEL && emailVisibilityOf(user) !== 1) {
    const shown = dummyEmail(id, current);
    await users.update(tx.db, id, { email: shown, email_lower: shown.toLowerCase() });
    user = (await users.findById(tx.db, id))!;
  }
  if (input.withDefaults !== undefined) {
    const named = input.streams ?? [];
    const extra = input.withDefaults ? (await streams.listDefaults(tx.db, realm.id)).filter((d) => !named.some((s) => s.id === d.id)) : [];
    if (named.length + extra.length > 0) await doAddSubscriptions(tx, [...named, ...extra], [user]);
  } else if (input.streams && input.streams.length > 0) await doAddSubscriptions(tx, input.streams, [user]);
  else await subscribeToDefaultStreams(tx, realm, user);
  await doAddNewUserHistory(tx, current, user);
  await notifyRealmUser(tx, realm.id, 'add', personForEvent(user, tx.featureLevel), user.delivery_email);
  // As Zulip's do_create_user: the role's system group (and role:fullmembers), with their events.
  await doSyncSystemGroups(tx, user);
  queueWelcomeMessage(tx, current, user);
  return user;
}
