import type { Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import type { Config } from '../config.js';
import { badRequest, botNameInUse, insufficientPermission, invalidInterfaceType, mustBeAdmin } from '../errors.js';
import { hasRealmGroupPermission } from '../access/realm-group-setting.js';
import { BotType } from '../lib/roles.js';
import { realmEmailDomain } from '../lib/realm-host.js';
import { generateApiKey } from '../lib/secrets.js';
import { users } from '../store/repos/users.js';
import { botServices } from '../store/repos/bot-services.js';
import { accessStreamByName } from '../access/stream.js';
import { botAudience, fullBot } from './bot-notify.js';
import { checkFullName, doCreateUser } from './user-create.js';

const SHORT_NAME_RE = /^[a-zA-Z0-9._-]+$/;

/** Zulip's Service interfaces: 1 its own outgoing payload, 2 Slack's. */
export const ALLOWED_INTERFACES = [1, 2];

export interface NewBot {
  fullName: string;
  shortName: string;
  botType: number;
  /** Outgoing webhooks: where the server calls, in which format, under which service name. */
  payloadUrl?: string;
  interfaceType?: number;
  serviceName?: string;
  /** Stream names, checked as the creator's access to them (Zulip's access_stream_by_name). */
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
}

/**
 * Zulip's check_can_create_bot (level 344; check_bot_creation_policy before it): members of
 * can_create_bots_group create any bot, those of can_create_write_only_bots_group incoming
 * webhooks. bot_creation_policy, the older form, is kept equal to the two groups. Zulip 9
 * refused with OrganizationAdministratorRequiredError, Zulip 10 with Insufficient permission.
 */
async function checkCanCreateBot(tx: Tx, realm: RealmRow, user: UserRow, botType: number): Promise<void> {
  if (await hasRealmGroupPermission(tx.db, realm, user, 'can_create_bots_group')) return;
  if (botType === BotType.INCOMING_WEBHOOK && await hasRealmGroupPermission(tx.db, realm, user, 'can_create_write_only_bots_group')) return;
  throw tx.featureLevel >= 344 ? insufficientPermission() : mustBeAdmin();
}

export async function doCreateBot(tx: Tx, config: Config, realm: RealmRow, owner: UserRow, input: NewBot): Promise<UserRow> {
  const short = input.shortName.trim();
  if (!SHORT_NAME_RE.test(short)) throw badRequest('Bad name or username');
  const fullName = checkFullName(input.fullName);
  const local = short.endsWith('-bot') ? short : `${short}-bot`;
  const email = `${local}@${realmEmailDomain(config, realm)}`;
  if (await users.findByEmail(tx.db, realm.id, email)) throw badRequest('Username already in use');
  if (await users.existsActiveWithName(tx.db, realm.id, fullName)) throw botNameInUse();
  await checkCanCreateBot(tx, realm, owner, input.botType);
  if (!(Object.values(BotType) as number[]).includes(input.botType)) throw badRequest('Invalid bot type');
  const interfaceType = input.interfaceType ?? 1;
  if (!ALLOWED_INTERFACES.includes(interfaceType)) throw invalidInterfaceType();
  const sending = input.defaultSendingStream === undefined ? null : (await accessStreamByName(tx.db, owner, input.defaultSendingStream)).stream;
  const register = input.defaultEventsRegisterStream === undefined ? null : (await accessStreamByName(tx.db, owner, input.defaultEventsRegisterStream)).stream;
  const created = await doCreateUser(tx, realm, {
    email, fullName: input.fullName, isBot: true, botType: input.botType, botOwnerId: owner.id,
  });
  const defaults = {
    default_sending_stream_id: sending?.id ?? null, default_events_register_stream_id: register?.id ?? null,
    default_all_public_streams: input.defaultAllPublicStreams ? 1 : 0,
  };
  if (sending || register || input.defaultAllPublicStreams) await users.update(tx.db, created.id, defaults);
  const bot = { ...created, ...defaults };
  if (input.botType === BotType.OUTGOING_WEBHOOK) {
    await botServices.insert(tx.db, {
      bot_id: bot.id, name: input.serviceName || short, base_url: input.payloadUrl ?? '', interface: interfaceType, token: generateApiKey(),
    });
  }
  tx.notify({ type: 'realm_bot', op: 'add', bot: await fullBot(tx, bot) }, await botAudience(tx, bot), realm.id);
  return bot;
}
