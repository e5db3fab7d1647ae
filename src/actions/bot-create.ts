import type { Tx } from './transaction.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import type { Config } from '../config.js';
import { badRequest } from '../errors.js';
import { BotType } from '../lib/roles.js';
import { realmEmailDomain } from '../lib/realm-host.js';
import { users } from '../store/repos/users.js';
import { presentBot } from '../presenters/bot.js';
import { doCreateUser } from './user-create.js';

const SHORT_NAME_RE = /^[a-zA-Z0-9._-]+$/;

export async function doCreateBot(
  tx: Tx, config: Config, realm: RealmRow, owner: UserRow,
  input: { fullName: string; shortName: string; botType: number },
): Promise<UserRow> {
  if (!(Object.values(BotType) as number[]).includes(input.botType)) throw badRequest('Invalid bot type');
  const short = input.shortName.trim();
  if (!SHORT_NAME_RE.test(short)) throw badRequest('Bad name or username');
  const local = short.endsWith('-bot') ? short : `${short}-bot`;
  const email = `${local}@${realmEmailDomain(config, realm)}`;
  if (await users.findByEmail(tx.db, realm.id, email)) throw badRequest('Username already in use');
  const bot = await doCreateUser(tx, realm, {
    email, fullName: input.fullName, isBot: true, botType: input.botType, botOwnerId: owner.id,
  });
  const adminIds = await users.listAdminIds(tx.db, realm.id);
  tx.notify({ type: 'realm_bot', op: 'add', bot: presentBot(bot) }, new Set([owner.id, ...adminIds]), realm.id);
  return bot;
}
