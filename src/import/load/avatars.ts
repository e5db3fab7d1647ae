/**
 * Uploaded avatars, made again from the export's image as an upload here would make them
 * (resized, under a new unguessable key). One Parley cannot read is left out: the person
 * keeps the default picture, and the import goes on.
 */
import { transact } from '../../actions/transaction.js';
import { doStoreAvatar, avatarStorageKeys } from '../../actions/avatar.js';
import { users } from '../../store/repos/users.js';
import type { FileRecord } from '../source.js';
import { tableOf, type LoadState } from './state.js';

/** Zulip's avatars are at most 5 MiB uploads; an export's original is bounded likewise (with room). */
const MAX_AVATAR_BYTES = 25 * 1024 * 1024;

async function readBounded(s: LoadState, record: FileRecord): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await s.source.openFile('avatars', record)) {
    size += (chunk as Buffer).length;
    if (size > MAX_AVATAR_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function loadAvatars(s: LoadState): Promise<void> {
  // The original when the export has it, else the served size.
  const bySourceUser = new Map<number, FileRecord>();
  for (const r of s.source.records.avatars) {
    if (typeof r.user_profile_id !== 'number') continue;
    const known = bySourceUser.get(r.user_profile_id);
    if (!known || (r.path.endsWith('.original') && !known.path.endsWith('.original'))) bySourceUser.set(r.user_profile_id, r);
  }
  const wanted = tableOf(s, 'zerver_userprofile').filter((u) => u.avatar_source === 'U' && bySourceUser.has(Number(u.id)) && s.users.has(u.id));
  if (wanted.length === 0) return;
  s.progress.phase('avatars', wanted.length);
  for (const row of wanted) {
    const image = await readBounded(s, bySourceUser.get(Number(row.id))!);
    const user = await users.findById(s.ctx.store.db, s.users.get(row.id, 'an avatar'));
    if (image && user) {
      try {
        const stored = await transact(s.ctx, (tx) => doStoreAvatar(tx, s.ctx.storage, user, image, { notify: false }));
        const keys = avatarStorageKeys(stored);
        if (keys) s.storedKeys.push(keys.original, keys.small, keys.medium);
      } catch (err) {
        s.ctx.log.warn({ err, user: user.id }, 'import: an avatar Parley cannot read was left out');
      }
    }
    s.progress.tick();
  }
  s.progress.done();
}
