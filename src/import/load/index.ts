/**
 * Loading an export into a new organization. The organization is made under a placeholder
 * name no host can reach (a dot is never part of a subdomain) and takes its real name in
 * the last transaction, once everything is in: until then nobody can sign in to it, and
 * whatever fails (a bad row, a missing file, a full disk, the process killed) leaves nothing
 * that can be reached. A failure removes what was made; one killed outright leaves the
 * placeholder, which the next import of that name clears once its heartbeat is stale.
 */
import type { AppContext } from '../../context.js';
import { transact } from '../../actions/transaction.js';
import { checkStringId } from '../../actions/realm-create.js';
import { isUniqueViolation } from '../../actions/stream-create.js';
import { doCreateSystemGroups } from '../../actions/system-groups.js';
import { doCreateSystemBots } from '../../actions/system-bots.js';
import { realms } from '../../store/repos/realms.js';
import { realmImport } from '../../store/repos/realm-import.js';
import { messages } from '../../store/repos/messages.js';
import { ApiError } from '../../errors.js';
import { nowSeconds } from '../../lib/time.js';
import { ImportError, NO_PROGRESS, type ImportSource, type Progress } from '../source.js';
import { realmFromZulip } from '../zulip-columns.js';
import { field } from './ids.js';
import { newState, tableOf, type LoadOptions, type LoadState } from './state.js';
import { loadPeople } from './people.js';
import { loadStreams } from './streams.js';
import { loadEmoji, loadGroups, loadLinkifiers, loadPersonal, loadProfileFields } from './extras.js';
import { loadMessages } from './messages.js';
import { loadReactions } from './reactions.js';
import { loadRealmAttachments } from './attachments.js';
import { removeStored } from './files.js';
import { loadAvatars } from './avatars.js';
import { loadBotData, loadScheduled } from './bot-data.js';
import { anonymousGroups, mapIdOf } from './groups-map.js';
import { loadBotDefaults } from './people.js';
import { loadIdlePeople } from './idle.js';

export type { LoadOptions } from './state.js';

const PLACEHOLDER = '.import.';
/** A placeholder whose heartbeat is older than this belongs to an import that died. */
const STALE_SECONDS = 15 * 60;

/** `idle`: people brought in soft-deactivated (idle.ts). */
export interface LoadResult { realmId: number; users: number; streams: number; messages: number; idle: number }

export async function loadRealm(ctx: AppContext, source: ImportSource, opts: LoadOptions, progress: Progress = NO_PROGRESS): Promise<LoadResult> {
  const stringId = checkedStringId(opts.stringId);
  const zulipRealm = source.realm.zerver_realm?.[0];
  if (!zulipRealm) throw new ImportError('the export has no organization (zerver_realm)');
  const sourceRealmId = field.int(zulipRealm, 'id', 'zerver_realm');
  const realm = await claim(ctx, stringId);
  const s = newState(ctx, source, realm, progress, opts, sourceRealmId);
  // The placeholder's heartbeat: how a later import tells this one, alive, from one killed.
  let beating = Promise.resolve();
  const heartbeat = setInterval(() => {
    beating = beat(ctx, realm.id);
  }, 60_000);
  try {
    await transact(ctx, async (tx) => {
      // The organization's settings first, its group-valued ones at their defaults until the
      // groups exist (finish() sets them): joining role groups follows the waiting period.
      const early = realmFromZulip({ ...zulipRealm, name: realm.name }, () => undefined, tableOf(s, 'zerver_realmuserdefault')[0]);
      await realms.update(tx.db, realm.id, { settings: early.settings });
      s.realm = (await realms.findById(tx.db, realm.id))!;
      for (const c of tableOf(s, 'zerver_client')) if (typeof c.id === 'number' && typeof c.name === 'string') s.clients.set(c.id, c.name.slice(0, 100));
      await loadPeople(tx, s);
      await loadGroups(tx, s);
      await loadStreams(tx, s);
      await loadBotDefaults(tx, s);
      await loadProfileFields(tx, s);
      await loadEmoji(tx, s);
      await loadLinkifiers(tx, s);
      await loadPersonal(tx, s);
      await loadBotData(tx, s);
    });
    await loadAvatars(s);
    const messageCount = await loadMessages(s);
    const realmReactions = tableOf(s, 'zerver_reaction');
    if (realmReactions.length > 0) await transact(ctx, (tx) => loadReactions(tx, s, realmReactions));
    await loadRealmAttachments(s);
    await transact(ctx, (tx) => loadScheduled(tx, s));
    // No beat may land after finish() has set the organization's own creation time.
    clearInterval(heartbeat);
    await beating;
    const idle = await finish(s, stringId, zulipRealm, opts.name);
    return { realmId: realm.id, users: s.users.size, streams: s.streams.size, messages: messageCount, idle };
  } catch (err) {
    await undo(s);
    if (err instanceof ApiError) throw new ImportError(`the export holds something Parley refuses: ${err.message}`);
    throw err;
  } finally {
    clearInterval(heartbeat);
  }
}

function checkedStringId(stringId: string): string {
  try {
    return checkStringId(stringId);
  } catch (err) {
    throw new ImportError(err instanceof Error ? err.message : String(err));
  }
}

/** The placeholder organization, after making sure the name is free and no live import holds it. */
async function claim(ctx: AppContext, stringId: string) {
  if (await realms.findByStringId(ctx.store.db, stringId)) throw new ImportError(`an organization with the string id '${stringId}' already exists`);
  const placeholder = `${PLACEHOLDER}${stringId}`;
  const held = await realms.findByStringId(ctx.store.db, placeholder);
  if (held) {
    if (held.date_created > nowSeconds() - STALE_SECONDS) throw new ImportError(`an import of '${stringId}' is already under way`);
    await transact(ctx, (tx) => realmImport.purge(tx.db, held.id, []));
  }
  return transact(ctx, async (tx) => {
    const id = await realms.insert(tx.db, {
      string_id: placeholder, name: stringId, description: '', settings: '{}', deactivated: 1, date_created: nowSeconds(),
    });
    const realm = (await realms.findById(tx.db, id))!;
    await doCreateSystemGroups(tx, realm.id);
    await doCreateSystemBots(tx, realm);
    return realm;
  }).catch((err: unknown) => {
    // Two imports of one name started together: the placeholder's unique name let one through.
    if (isUniqueViolation(err)) throw new ImportError(`an import of '${stringId}' is already under way`);
    throw err;
  });
}

async function beat(ctx: AppContext, realmId: number): Promise<void> {
  try {
    await transact(ctx, (tx) => realms.update(tx.db, realmId, { date_created: nowSeconds() }));
  } catch (err) {
    ctx.log.warn({ err }, 'import heartbeat failed');
  }
}

/** The organization's own settings, its first messages per stream, and its real name: it is reachable from here on. */
async function finish(s: LoadState, stringId: string, row: Record<string, unknown>, name: string | undefined): Promise<number> {
  // Slack and Mattermost exports carry no organization name: the operator's, else the string id.
  const given = typeof row.name === 'string' && row.name.trim() !== '' ? row.name : stringId;
  const mapped = realmFromZulip({ ...row, name: (name ?? given).slice(0, 40) }, mapIdOf(s), tableOf(s, 'zerver_realmuserdefault')[0], anonymousGroups(s));
  return transact(s.ctx, async (tx) => {
    // Once every message is in: their marks name imported messages.
    const idle = await loadIdlePeople(tx, s);
    // Stream by stream along (stream_id, id): one GROUP BY over the organization's messages
    // sorted them all in memory (at 1,000,000 messages, tens of MB at the import's peak).
    for (const [, streamId] of s.streams.entries()) {
      const first = await messages.firstIdInStream(tx.db, streamId);
      if (first !== null) await realmImport.setStreamFirstMessage(tx.db, streamId, first);
    }
    if (await realms.findByStringId(tx.db, stringId)) throw new ImportError(`an organization with the string id '${stringId}' was made while importing`);
    await realms.update(tx.db, s.realm.id, {
      string_id: stringId, name: mapped.name, description: mapped.description ?? '', settings: mapped.settings,
      // A deactivated organization's export comes back active: importing it is the point.
      deactivated: 0, date_created: mapped.date_created,
    });
    return idle;
  });
}

async function undo(s: LoadState): Promise<void> {
  try {
    await transact(s.ctx, (tx) => realmImport.purge(tx.db, s.realm.id, s.madeHuddles));
  } catch (err) {
    s.ctx.log.error({ err }, 'could not remove the organization of a failed import');
  }
  await removeStored(s);
}
