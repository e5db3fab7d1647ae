/**
 * Unpacking an export someone handed us. The archive is untrusted: every name is checked
 * before anything is written (no absolute path, no `..`, no link, no device, no duplicate),
 * every size is bounded, and bytes are counted as they are written, so that an archive that
 * lies about a size, hides a zip bomb or tries to climb out of the target folder fails with
 * one clear line and leaves nothing behind but the temporary folder its caller removes.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { ImportError, type Progress } from './source.js';

export interface ArchiveLimits {
  /** The largest single file. */
  maxEntryBytes: number;
  /** All files together, unpacked. */
  maxTotalBytes: number;
  maxEntries: number;
}

export const DEFAULT_LIMITS: ArchiveLimits = {
  maxEntryBytes: 4 * 1024 ** 3,
  maxTotalBytes: 256 * 1024 ** 3,
  maxEntries: 5_000_000,
};

const MAX_NAME = 1024;

/**
 * The relative path an archive entry may take, or an ImportError. Names are read as the
 * archive gives them; both separators count, so that a Windows-made archive cannot smuggle
 * `..\\` past a POSIX check.
 */
export function safeEntryPath(name: string): string {
  const bad = (why: string) => new ImportError(`the archive has an unsafe entry ${JSON.stringify(name.slice(0, 200))}: ${why}`);
  if (name.length === 0 || name.length > MAX_NAME) throw bad('bad name length');
  if (/[\u0000-\u001f]/.test(name)) throw bad('control characters in its name');
  const unified = name.replace(/\\/g, '/');
  if (unified.startsWith('/') || /^[a-zA-Z]:/.test(unified)) throw bad('absolute path');
  const parts = unified.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) throw bad('it climbs out of the folder');
  if (parts.length === 0) throw bad('empty name');
  return parts.join('/');
}

/** Counts bytes through a stream and fails past `limit` or `expected`. */
function meter(onBytes: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        onBytes(chunk.length);
        done(null, chunk);
      } catch (err) {
        done(err as Error);
      }
    },
  });
}

class Budget {
  private total = 0;
  private entries = 0;
  private readonly seen = new Set<string>();
  constructor(private readonly limits: ArchiveLimits, private readonly root: string) {}

  /** Where a file entry goes; refuses duplicates and too many entries. */
  claim(rel: string): string {
    if (++this.entries > this.limits.maxEntries) throw new ImportError(`the archive has more than ${this.limits.maxEntries} entries`);
    if (this.seen.has(rel)) throw new ImportError(`the archive has ${JSON.stringify(rel)} twice`);
    this.seen.add(rel);
    const target = path.join(this.root, rel);
    // safeEntryPath already refused `..`; this guards the join itself.
    if (!target.startsWith(this.root + path.sep)) throw new ImportError(`the archive entry ${JSON.stringify(rel)} leaves the folder`);
    return target;
  }

  checkDeclared(rel: string, size: number): void {
    if (!Number.isFinite(size) || size < 0) throw new ImportError(`the archive entry ${JSON.stringify(rel)} has no valid size`);
    if (size > this.limits.maxEntryBytes) throw new ImportError(`the archive entry ${JSON.stringify(rel)} is larger than ${this.limits.maxEntryBytes} bytes`);
  }

  add(n: number): void {
    this.total += n;
    if (this.total > this.limits.maxTotalBytes) throw new ImportError(`the archive unpacks to more than ${this.limits.maxTotalBytes} bytes`);
  }

  get bytes(): number {
    return this.total;
  }

  private readonly folders = new Set<string>();

  /** Makes a folder once, however many entries it holds. */
  async folder(dir: string): Promise<void> {
    if (this.folders.has(dir)) return;
    await fs.promises.mkdir(dir, { recursive: true });
    this.folders.add(dir);
  }
}

/** Entries up to this size are gathered in memory and written in one call: most of an export is small JSON files. */
const SMALL_ENTRY = 1024 * 1024;

async function writeEntry(open: () => Promise<Readable>, target: string, rel: string, declared: number, budget: Budget): Promise<void> {
  await budget.folder(path.dirname(target));
  const body = await open();
  // yauzl's streams start flowing, and may fail their size check, before anything listens:
  // the consumer below still sees the stream errored; the early report must not crash the process.
  body.on('error', () => undefined);
  let written = 0;
  const count = (n: number) => {
    written += n;
    if (written > declared) throw new ImportError(`the archive entry ${JSON.stringify(rel)} holds more than its declared ${declared} bytes`);
    budget.add(n);
  };
  if (declared <= SMALL_ENTRY) {
    const chunks: Buffer[] = [];
    for await (const chunk of body) {
      count((chunk as Buffer).length);
      chunks.push(chunk as Buffer);
    }
    if (written !== declared) throw new ImportError(`the archive entry ${JSON.stringify(rel)} holds ${written} bytes, not its declared ${declared}`);
    // `wx`: never replace a file (the folder is new, so this only ever catches a duplicate).
    await fs.promises.writeFile(target, Buffer.concat(chunks), { flag: 'wx' });
    return;
  }
  await pipeline(body, meter(count), fs.createWriteStream(target, { flags: 'wx' }));
  if (written !== declared) throw new ImportError(`the archive entry ${JSON.stringify(rel)} holds ${written} bytes, not its declared ${declared}`);
}

async function extractTarGz(file: string, into: string, limits: ArchiveLimits, progress?: Progress): Promise<void> {
  const budget = new Budget(limits, into);
  const extract = tar.extract();
  const done = pipeline(fs.createReadStream(file), meter((n) => progress?.tick(n)), zlib.createGunzip(), extract);
  const entries = (async () => {
    for await (const entry of extract) {
      const { header } = entry;
      const kind: string = header.type ?? 'file';
      if (kind === 'directory' || kind === 'pax-global-header') {
        if (kind === 'directory') safeEntryPath(header.name);
        entry.resume();
        continue;
      }
      if (kind !== 'file' && kind !== 'contiguous-file') {
        throw new ImportError(`the archive has ${JSON.stringify(header.name.slice(0, 200))} of type ${kind}: only files and folders are accepted`);
      }
      const rel = safeEntryPath(header.name);
      const size = header.size ?? 0;
      budget.checkDeclared(rel, size);
      await writeEntry(async () => entry as unknown as Readable, budget.claim(rel), rel, size, budget);
    }
  })();
  try {
    await Promise.all([done, entries]);
  } catch (err) {
    extract.destroy();
    throw readable(err, file);
  }
}

const ZIP_WRITES_IN_FLIGHT = 16;

/** A zip's central directory declares every entry up front: all of it is checked before a byte is written. */
async function extractZip(file: string, into: string, limits: ArchiveLimits, progress?: Progress): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    // strictFileNames: a backslash is refused rather than taken for a separator.
    zip = await yauzl.openPromise(file, { autoClose: false, lazyEntries: true, validateEntrySizes: true, strictFileNames: true, decodeStrings: true });
  } catch (err) {
    throw readable(err, file);
  }
  const budget = new Budget(limits, into);
  // yauzl also reports a broken entry on the zip itself: heard here, it fails the unpacking below.
  let broken: Error | undefined;
  const inFlight = new Set<Promise<void>>();
  zip.on('error', (err: Error) => {
    broken ??= err;
  });
  try {
    if (zip.entryCount > limits.maxEntries) throw new ImportError(`the archive has more than ${limits.maxEntries} entries`);
    for await (const entry of zip.eachEntry()) {
      const isDir = entry.fileName.endsWith('/');
      const rel = safeEntryPath(entry.fileName);
      // Unix mode bits in the high half: a symbolic link's are 0o120000.
      const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
      if (mode !== 0 && mode !== 0o100000 && mode !== 0o040000) {
        throw new ImportError(`the archive has ${JSON.stringify(rel)}, which is not a plain file or folder`);
      }
      if (entry.isEncrypted()) throw new ImportError(`the archive entry ${JSON.stringify(rel)} is encrypted`);
      if (isDir) continue;
      budget.checkDeclared(rel, entry.uncompressedSize);
      const target = budget.claim(rel);
      // Entries are written several at a time: one at a time, an export of many small files
      // spent most of its unpacking waiting on each file's few reads and writes in turn.
      const write = writeEntry(() => zip.openReadStreamPromise(entry), target, rel, entry.uncompressedSize, budget)
        .then(() => progress?.tick(entry.compressedSize));
      const slot = write.finally(() => inFlight.delete(slot));
      inFlight.add(slot);
      if (inFlight.size >= ZIP_WRITES_IN_FLIGHT) await Promise.race(inFlight);
      if (broken) throw broken;
    }
    await Promise.all(inFlight);
    if (broken) throw broken;
  } catch (err) {
    // The others are let finish (or fail) before the caller removes the folder they write in.
    await Promise.allSettled(inFlight);
    throw readable(err, file);
  } finally {
    zip.close();
  }
}

function readable(err: unknown, file: string): Error {
  if (err instanceof ImportError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new ImportError(`${path.basename(file)} is not a readable archive: ${msg}`);
}

export type ArchiveKind = 'zip' | 'tar.gz' | 'folder';

/** What PATH is, by its first bytes rather than its name. */
export async function archiveKind(file: string): Promise<ArchiveKind> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    throw new ImportError(`${file}: no such file or folder`);
  }
  if (stat.isDirectory()) return 'folder';
  const fh = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    await fh.read(head, 0, 4, 0);
    if (head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
    if (head.readUInt32LE(0) === 0x04034b50 || head.readUInt32LE(0) === 0x06054b50) return 'zip';
  } finally {
    await fh.close();
  }
  throw new ImportError(`${path.basename(file)} is neither a .zip nor a .tar.gz archive nor a folder`);
}

/** Unpacks `file` into the empty folder `into`; a folder is read in place (the answer is where to read). */
export async function unpack(file: string, into: string, limits: ArchiveLimits = DEFAULT_LIMITS, progress?: Progress): Promise<string> {
  const kind = await archiveKind(file);
  if (kind === 'folder') return path.resolve(file);
  const size = (await fs.promises.stat(file)).size;
  progress?.phase('unpacking', size);
  await fs.promises.mkdir(into, { recursive: true });
  const root = await fs.promises.realpath(into);
  if (kind === 'zip') await extractZip(file, root, limits, progress);
  else await extractTarGz(file, root, limits, progress);
  progress?.done();
  return root;
}

/**
 * The folder holding `marker`: the root, or the single folder an archive wraps everything in
 * (Zulip's `zulip-export-xxxx/`, a zipped Slack export's folder).
 */
export async function findRoot(dir: string, marker: string): Promise<string> {
  if (fs.existsSync(path.join(dir, marker))) return dir;
  const subdirs = (await fs.promises.readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory() && !d.name.startsWith('__MACOSX'));
  const found = subdirs.filter((d) => fs.existsSync(path.join(dir, d.name, marker)));
  if (found.length === 1) return path.join(dir, found[0]!.name);
  throw new ImportError(`no ${marker} in the export`);
}

/**
 * A file of an unpacked export by its relative name, refusing names that leave `root` (the
 * names come from the export's own JSON) and links (a folder given as is may hold them).
 */
export async function openInside(root: string, rel: string, maxBytes: number): Promise<{ path: string; size: number }> {
  const safe = safeEntryPath(rel);
  const full = path.join(root, safe);
  let stat: fs.Stats;
  try {
    stat = await fs.promises.lstat(full);
  } catch {
    throw new ImportError(`the export lacks ${safe}`);
  }
  if (!stat.isFile()) throw new ImportError(`${safe} in the export is not a plain file`);
  const real = await fs.promises.realpath(full);
  const realRoot = await fs.promises.realpath(root);
  if (!real.startsWith(realRoot + path.sep)) throw new ImportError(`${safe} in the export leaves its folder`);
  if (stat.size > maxBytes) throw new ImportError(`${safe} in the export is larger than ${maxBytes} bytes`);
  return { path: full, size: stat.size };
}

/** A JSON file of an unpacked export, parsed, with the file named in any error. */
export async function readJson(root: string, rel: string, maxBytes: number): Promise<unknown> {
  const { path: full } = await openInside(root, rel, maxBytes);
  const text = await fs.promises.readFile(full, 'utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ImportError(`${rel} in the export is not valid JSON: ${(err as Error).message}`);
  }
}
