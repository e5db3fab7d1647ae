import type { AppContext } from '../context.js';
import { transact } from './transaction.js';
import { attachments, type AttachmentRow } from '../store/repos/attachments.js';
import { uploadPathIds } from '../lib/uploads.js';
import { nowSeconds } from '../lib/time.js';

/** Rows looked at per batch: each batch's deletions are short transactions between which sends write freely. */
const BATCH = 100;
const DAY = 86_400;

export interface UploadSweep {
  /** Seconds since the epoch: what counts as old is measured from here (tests pass a later clock). */
  now?: number;
  /** Uploaded more than this many days ago (config unlinkedUploadGraceDays by default). */
  graceDays?: number;
  /** One organization only. */
  realmId?: number;
  /** List what would go, delete nothing. */
  dryRun?: boolean;
  /** Aborted: the sweep ends after the file in hand; the next one does the rest. */
  signal?: AbortSignal;
  /** After each batch: files found collectable so far and their bytes. */
  onProgress?: (found: number, bytes: number) => void;
}

export interface SweptUpload {
  id: number;
  realmId: number;
  pathId: string;
  size: number;
  /** Seconds since upload, at the sweep's clock. */
  ageSecs: number;
}

export interface UploadSweepResult {
  /** Collectable files: deleted, or with dryRun those that would be. */
  files: SweptUpload[];
  bytes: number;
  /** Files whose object the storage would not delete (kept with their rows; the next sweep retries). */
  failed: number;
}

/**
 * Zulip's delete_old_unclaimed_attachments: uploads that no message links (deleting or
 * editing the last one that did unlinks them: attachment-claims.ts), that no draft,
 * scheduled message or saved snippet names either, and older than the grace period, are
 * deleted from the storage and then from the database. Only upload rows are looked at:
 * avatars, custom emoji and organization icons are never attachments, never swept.
 *
 * The object goes first and the row after, the reverse of Zulip's order: a crash between the
 * two leaves a row without bytes, which the next sweep finds again (still unlinked, still
 * old), whose delete of an absent object is no error, and whose row then goes. The other
 * order would leave bytes no row names: billed forever, and invisible to every later sweep.
 * A message may link a file in the moment between its last check and its object's delete;
 * then the row stays (linked, the link answering 404) and the event is logged.
 */
export async function sweepUploads(ctx: AppContext, opts: UploadSweep = {}): Promise<UploadSweepResult> {
  const now = opts.now ?? nowSeconds();
  const before = now - (opts.graceDays ?? ctx.config.unlinkedUploadGraceDays) * DAY;
  const result: UploadSweepResult = { files: [], bytes: 0, failed: 0 };
  for (let afterId = 0; ;) {
    if (opts.signal?.aborted) break;
    const page = await attachments.listUnclaimed(ctx.store.db, before, { afterId, limit: BATCH, ...(opts.realmId !== undefined ? { realmId: opts.realmId } : {}) });
    if (page.length === 0) break;
    afterId = page[page.length - 1]!.id;
    for (const a of await withoutUnsentLinks(ctx, page)) {
      if (opts.signal?.aborted) break;
      const outcome = opts.dryRun ? 'deleted' : await deleteUpload(ctx, a);
      if (outcome === 'failed') result.failed += 1;
      if (outcome !== 'deleted') continue;
      result.files.push({ id: a.id, realmId: a.realm_id, pathId: a.path_id, size: Number(a.size), ageSecs: now - Number(a.create_time) });
      result.bytes += Number(a.size);
    }
    opts.onProgress?.(result.files.length, result.bytes);
    if (page.length < BATCH) break;
  }
  return result;
}

/** The page's files that no draft, undelivered scheduled message or saved snippet of their organization names. */
async function withoutUnsentLinks(ctx: AppContext, page: AttachmentRow[]): Promise<AttachmentRow[]> {
  const named = new Set<string>();
  for (const realmId of new Set(page.map((a) => a.realm_id))) {
    for (const text of await attachments.listUnsentTextsNamingUploads(ctx.store.db, realmId)) {
      for (const id of uploadPathIds(text)) named.add(id);
    }
  }
  return page.filter((a) => !named.has(a.path_id) && isUploadKey(a));
}

/**
 * An upload's key is `<realm_id>/<random>/<name>` (lib/uploads.ts, and imports keep the
 * shape): never an avatar's `<realm_id>/<hash>` nor an emoji's `<realm_id>/emoji/...`. A row
 * whose key is not an upload's is left alone rather than trusted.
 */
function isUploadKey(a: AttachmentRow): boolean {
  const parts = a.path_id.split('/');
  return parts.length >= 3 && parts[0] === String(a.realm_id) && parts[1] !== 'emoji';
}

/** Object, then row (see sweepUploads); the owner's attachment list hears the removal. */
async function deleteUpload(ctx: AppContext, a: AttachmentRow): Promise<'deleted' | 'kept' | 'failed'> {
  // Linked since the page was read (a message sent meanwhile): kept.
  if (await attachments.isClaimed(ctx.store.db, a.id)) return 'kept';
  try {
    await ctx.storage.delete(a.path_id);
  } catch (err) {
    ctx.log.warn({ err, path: a.path_id }, 'storage sweep: the object could not be deleted; its row stays for the next sweep');
    return 'failed';
  }
  const gone = await transact(ctx, async (tx) => {
    if (!(await attachments.deleteUnclaimed(tx.db, a.id))) return false;
    tx.notify({ type: 'attachment', op: 'remove', attachment: { id: a.id }, upload_space_used: await attachments.sumSizeOfRealm(tx.db, a.realm_id) },
      [a.owner_id], a.realm_id);
    return true;
  });
  if (gone) return 'deleted';
  // Not deleted: its owner deleted it meanwhile (nothing lost), or a message linked it.
  if (await attachments.isClaimed(ctx.store.db, a.id)) {
    ctx.log.error({ path: a.path_id, attachment: a.id }, 'storage sweep: a message linked the file while its object was being deleted; the link now answers 404');
  }
  return 'kept';
}
