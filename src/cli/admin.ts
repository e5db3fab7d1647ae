import type { Command } from 'commander';
import type { AppContext } from '../context.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { openContext } from '../open-context.js';
import type { ConfigOverrides } from '../config.js';
import { ApiError } from '../errors.js';
import { transact } from '../actions/transaction.js';
import { realms } from '../store/repos/realms.js';
import { users } from '../store/repos/users.js';
import { doCreateRealm } from '../actions/realm-create.js';
import { doCreateUser } from '../actions/user-create.js';
import { doCreateBot } from '../actions/bot-create.js';
import { isUrl } from '../lib/url.js';
import { doRegenerateApiKey, doSetCanChangeUserEmails, doSetPasswordHash } from '../actions/user-update.js';
import { hashPassword, randomString } from '../lib/secrets.js';
import { Role, BotType } from '../lib/roles.js';
import { realmUri, ROOT_STRING_ID } from '../lib/realm-host.js';
import { ensureDefaultRealm } from './bootstrap.js';
import { overridesFrom, storeOptions } from './options.js';

const ROLES: Record<string, number> = {
  owner: Role.OWNER, admin: Role.ADMINISTRATOR, administrator: Role.ADMINISTRATOR,
  moderator: Role.MODERATOR, member: Role.MEMBER, guest: Role.GUEST,
};

export class CliError extends Error {}

/** Opens the store, makes sure the default organization exists, runs `fn`, closes. */
export async function withContext<T>(opts: Record<string, unknown>, fn: (ctx: AppContext) => Promise<T>, extra: ConfigOverrides = {}): Promise<T> {
  const ctx = await openContext({ ...overridesFrom(opts), ...extra, logLevel: 'warn' });
  try {
    const boot = await ensureDefaultRealm(ctx);
    if (boot.generated) process.stderr.write(`Created the default organization; log in as ${boot.email} with password ${boot.password}\n`);
    return await fn(ctx);
  } finally {
    await ctx.bus.close();
    // Pooled SMTP connections would otherwise hold the command open after it is done.
    ctx.mail.close();
    await ctx.store.close();
  }
}

export async function findRealm(ctx: AppContext, stringId: string): Promise<RealmRow> {
  const realm = await realms.findByStringId(ctx.store.db, stringId);
  if (!realm) throw new CliError(`No organization with string id '${stringId}'`);
  return realm;
}

export async function findUser(ctx: AppContext, realm: RealmRow, email: string): Promise<UserRow> {
  // The real address (from feature level 163 `email` may be a dummy one).
  const user = await users.findByDeliveryEmail(ctx.store.db, realm.id, email);
  if (!user) throw new CliError(`No user '${email}' in organization '${realm.string_id || '(default)'}'`);
  return user;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Runs a command body, turning expected failures into one line on stderr and exit code 1. */
export function run(fn: (opts: Record<string, unknown>) => Promise<void>) {
  return async (opts: Record<string, unknown>) => {
    try {
      await fn(opts);
    } catch (err) {
      if (err instanceof CliError || err instanceof ApiError) {
        process.stderr.write(`parley: ${err.message}\n`);
        process.exitCode = 1;
        return;
      }
      throw err;
    }
  };
}

const orgOption = (cmd: Command) => cmd.option('--org <string_id>', 'organization string id (default: the root organization)', ROOT_STRING_ID);

export function addAdminCommands(program: Command): void {
  const org = program.command('org').description('manage organizations');
  storeOptions(org.command('create').description('create an organization and its owner'))
    .requiredOption('--string-id <id>', 'subdomain, e.g. "acme" for acme.<host>')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--owner-email <email>', 'email of the owner')
    .option('--owner-password <password>', 'owner password (generated when absent)')
    .option('--owner-name <name>', 'owner full name')
    .action(run(async (opts) => withContext(opts, async (ctx) => {
      const password = opts.ownerPassword ? String(opts.ownerPassword) : randomString(20);
      const { realm, owner } = await transact(ctx, (tx) => doCreateRealm(tx, {
        stringId: String(opts.stringId), name: String(opts.name), ownerEmail: String(opts.ownerEmail),
        ownerPassword: password, ...(opts.ownerName ? { ownerFullName: String(opts.ownerName) } : {}),
      }));
      print({
        realm_id: realm.id, string_id: realm.string_id, realm_uri: realmUri(ctx.config, realm),
        owner: { user_id: owner.id, email: owner.email, api_key: owner.api_key, ...(opts.ownerPassword ? {} : { password }) },
      });
    })));

  const user = program.command('user').description('manage users');
  orgOption(storeOptions(user.command('create').description('create a user; prints user_id, email and api_key')))
    .requiredOption('--email <email>', 'email address (the login)')
    .requiredOption('--full-name <name>', 'full name')
    .option('--password <password>', 'password (none: API key only)')
    .option('--role <role>', `one of ${Object.keys(ROLES).join(', ')}`, 'member')
    .action(run(async (opts) => withContext(opts, async (ctx) => {
      const name = String(opts.role).toLowerCase();
      const role = Object.hasOwn(ROLES, name) ? ROLES[name] : undefined;
      if (role === undefined) throw new CliError(`Unknown role '${String(opts.role)}'`);
      const realm = await findRealm(ctx, String(opts.org));
      const created = await transact(ctx, (tx) => doCreateUser(tx, realm, {
        email: String(opts.email), fullName: String(opts.fullName), role,
        password: opts.password ? String(opts.password) : undefined,
      }));
      print({ user_id: created.id, email: created.email, api_key: created.api_key });
    })));

  orgOption(storeOptions(user.command('password').description("set a user's password (people an import brought in have none); prints it when generated")))
    .requiredOption('--email <email>', 'the user')
    .option('--password <password>', 'the new password (generated when absent)')
    .action(run(async (opts) => withContext(opts, async (ctx) => {
      const realm = await findRealm(ctx, String(opts.org));
      const target = await findUser(ctx, realm, String(opts.email));
      if (target.is_bot === 1) throw new CliError(`'${String(opts.email)}' is a bot: bots sign in with their API key`);
      const password = opts.password ? String(opts.password) : randomString(20);
      const hash = await hashPassword(password);
      await transact(ctx, (tx) => doSetPasswordHash(tx, target, hash));
      print({ user_id: target.id, email: target.email, ...(opts.password ? {} : { password }) });
    })));

  // Zulip's change_user_role for its special permissions: held by a person, granted only here.
  orgOption(storeOptions(user.command('special-permission').description("grant or revoke a special permission (can_change_user_emails: administrators may change others' addresses)")))
    .requiredOption('--email <email>', 'the user')
    .requiredOption('--permission <name>', 'can_change_user_emails')
    .option('--revoke', 'take it away instead')
    .action(run(async (opts) => withContext(opts, async (ctx) => {
      if (opts.permission !== 'can_change_user_emails') throw new CliError(`Unknown special permission '${String(opts.permission)}'`);
      const realm = await findRealm(ctx, String(opts.org));
      const target = await findUser(ctx, realm, String(opts.email));
      const value = opts.revoke !== true;
      await transact(ctx, (tx) => doSetCanChangeUserEmails(tx, target, value));
      print({ user_id: target.id, email: target.email, can_change_user_emails: value });
    })));

  const bot = program.command('bot').description('manage bots');
  orgOption(storeOptions(bot.command('create').description('create a bot; prints user_id, email and api_key')))
    .requiredOption('--owner <email>', 'the human who owns the bot')
    .requiredOption('--full-name <name>', 'display name')
    .requiredOption('--short-name <name>', 'the bot email becomes <short-name>-bot@<org domain>')
    .option('--bot-type <n>', '1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded', String(BotType.GENERIC))
    .option('--payload-url <url>', 'outgoing webhook bots: the URL the server calls when the bot is mentioned or messaged')
    .option('--interface <n>', "outgoing webhook bots: the payload format, 1 Zulip's or 2 Slack's", '1')
    .action(run(async (opts) => withContext(opts, async (ctx) => {
      const realm = await findRealm(ctx, String(opts.org));
      const owner = await findUser(ctx, realm, String(opts.owner));
      const botType = Number(opts.botType);
      const payloadUrl = opts.payloadUrl === undefined ? undefined : String(opts.payloadUrl);
      // The same checks as POST /bots: a service needs a real URL; other bots have no service.
      if (payloadUrl !== undefined && !isUrl(payloadUrl)) throw new CliError(`'${payloadUrl}' is not a URL`);
      if (botType === BotType.OUTGOING_WEBHOOK && payloadUrl === undefined) throw new CliError('An outgoing webhook bot needs --payload-url');
      if (botType !== BotType.OUTGOING_WEBHOOK && payloadUrl !== undefined) throw new CliError('--payload-url is for outgoing webhook bots (--bot-type 3)');
      const created = await transact(ctx, (tx) => doCreateBot(tx, ctx.config, realm, owner, {
        fullName: String(opts.fullName), shortName: String(opts.shortName), botType, payloadUrl, interfaceType: Number(opts.interface),
      }));
      print({ user_id: created.id, email: created.email, api_key: created.api_key, bot_type: botType, ...(payloadUrl === undefined ? {} : { payload_url: payloadUrl, interface: Number(opts.interface) }) });
    })));

  const key = program.command('api-key').description("show or regenerate a user's API key");
  for (const verb of ['show', 'regenerate'] as const) {
    orgOption(storeOptions(key.command(verb).description(verb === 'show' ? 'print the API key' : 'replace the API key and print the new one')))
      .requiredOption('--email <email>', 'the user')
      .action(run(async (opts) => withContext(opts, async (ctx) => {
        const realm = await findRealm(ctx, String(opts.org));
        const target = await findUser(ctx, realm, String(opts.email));
        const apiKey = verb === 'show' ? target.api_key : await transact(ctx, (tx) => doRegenerateApiKey(tx, target));
        print({ user_id: target.id, email: target.email, api_key: apiKey });
      })));
  }
}
