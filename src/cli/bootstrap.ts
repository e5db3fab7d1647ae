import type { AppContext } from '../context.js';
import { realms } from '../store/repos/realms.js';
import { transact } from '../actions/transaction.js';
import { doCreateRealm } from '../actions/realm-create.js';
import { randomString } from '../lib/secrets.js';
import { realmEmailDomain, ROOT_STRING_ID } from '../lib/realm-host.js';

/**
 * First start on an empty database: the root organization and its owner. Returns the
 * generated password when one had to be made up, so the caller can print it once.
 * `welcome: false` (tests, benchmarks) leaves out the starter stream and welcome messages.
 */
export async function ensureDefaultRealm(ctx: AppContext, opts: { welcome?: boolean } = {}): Promise<{ created: boolean; email?: string; password?: string; generated?: boolean }> {
  if (await realms.findByStringId(ctx.store.db, ROOT_STRING_ID)) return { created: false };
  const email = ctx.config.adminEmail ?? `admin@${realmEmailDomain(ctx.config, { string_id: ROOT_STRING_ID })}`;
  const generated = !ctx.config.adminPassword;
  const password = ctx.config.adminPassword ?? randomString(20);
  await transact(ctx, (tx) =>
    doCreateRealm(tx, { stringId: ROOT_STRING_ID, name: ctx.config.orgName, ownerEmail: email, ownerPassword: password, ownerFullName: 'Administrator', ...opts }));
  return { created: true, email, password, generated };
}
