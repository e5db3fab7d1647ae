import type { Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import type { Config } from '../config.js';
import { badRequest } from '../errors.js';
import { BotType } from '../lib/roles.js';
import { realmEmailDomain } from '../lib/realm-host.js';
import { generateApiKey } from '../lib/secrets.js';
import { users } from '../store/repos/users.js';
import { botServices } from '../store/repos/bot-services.js';
import { botExtrasOf } from '../reads/bots.js';
import { presentBot } from '../presenters/bot.js';
import { doCreateUser } from './user-create.js';

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
}

export async function doCreateBot(tx: Tx, config: Config, realm: RealmRow, owner: UserRow, input: NewBot): Promise<UserRow> {
  const short = input.shortName.trim();
  if (!SHORT_NAME_RE.test(short)) throw badRequest('Bad name or username');
  const local = short.endsWith('-bot') ? short : `${short}-bot`;
  const email = `${local}@${realmEmailDomain(config, realm)}`;
  if (await users.findByEmail(tx.db, realm.id, email)) throw badRequest('Username already in use');
  if (!(Object.values(BotType) as number[]).includes(input.botType)) throw badRequest('Invalid bot type');
  const interfaceType = input.interfaceType ?? 1;
  if (!ALLOWED_INTERFACES.includes(interfaceType)) throw badRequest('Invalid interface type');
  const bot = await doCreateUser(tx, realm, {
    email, fullName: input.fullName, isBot: true, botType: input.botType, botOwnerId: owner.id,
  });
  if (input.botType === BotType.OUTGOING_WEBHOOK) {
    await botServices.insert(tx.db, {
      bot_id: bot.id, name: input.serviceName || short, base_url: input.payloadUrl ?? '', interface: interfaceType, token: generateApiKey(),
    });
  }
  const adminIds = await users.listAdminIds(tx.db, realm.id);
  const extras = (await botExtrasOf(tx.db, [bot])).get(bot.id);
  tx.notify({ type: 'realm_bot', op: 'add', bot: presentBot(bot, extras) }, new Set([owner.id, ...adminIds]), realm.id);
  return bot;
}
