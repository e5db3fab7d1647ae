/**
 * An export is untrusted: whatever an archive says, unpacking writes only plain files inside
 * the target folder, within the size bounds, with exactly the bytes each entry declares.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import yazl from 'yazl';
import { unpack, safeEntryPath, DEFAULT_LIMITS, openInside } from '../../src/import/archive.js';
import { ImportError } from '../../src/import/source.js';
import { scratchDir } from '../helpers/scratch.js';

const tmp = () => scratchDir('parley-archive-');

async function tarGz(entries: Array<{ header: Parameters<tar.Pack["entry"]>[0]; body?: string | Buffer }>): Promise<string> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const gz = pack.pipe(zlib.createGzip());
  gz.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise((r) => gz.on('end', r));
  for (const e of entries) pack.entry(e.header, e.body ?? '');
  pack.finalize();
  await ended;
  const file = path.join(tmp(), 'x.tar.gz');
  fs.writeFileSync(file, Buffer.concat(chunks));
  return file;
}

async function zip(entries: Array<{ name: string; body: Buffer; mode?: number; compress?: boolean }>): Promise<string> {
  const z = new yazl.ZipFile();
  for (const e of entries) z.addBuffer(e.body, e.name, { ...(e.mode !== undefined ? { mode: e.mode } : {}), compress: e.compress ?? true });
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream) chunks.push(c as Buffer);
  const file = path.join(tmp(), 'x.zip');
  fs.writeFileSync(file, Buffer.concat(chunks));
  return file;
}

async function refused(file: string, message: RegExp, limits = DEFAULT_LIMITS): Promise<string> {
  const into = path.join(tmp(), 'out');
  await assert.rejects(unpack(file, into, limits), (e: unknown) => {
    assert.ok(e instanceof ImportError, String(e));
    assert.match(e.message, message);
    assert.ok(!e.message.includes('\n'));
    return true;
  });
  return into;
}

/** Every file under `dir`, relative. */
function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((d) => !d.isDirectory()).map((d) => path.relative(dir, path.join(d.parentPath, d.name))).sort();
}

test('entry names: relative, inside, both separators checked', () => {
  assert.equal(safeEntryPath('a/./b//c.json'), 'a/b/c.json');
  for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'C:/x', '..\\x', 'a\\..\\..\\x', '', 'a\u0000b']) {
    assert.throws(() => safeEntryPath(bad), ImportError, bad);
  }
});

test('a good tar.gz and a good zip unpack to exactly their files', async () => {
  const t = await tarGz([{ header: { name: 'zulip-export-1/', type: 'directory' } }, { header: { name: 'zulip-export-1/realm.json' }, body: '{}' }]);
  const into = path.join(tmp(), 'out');
  const root = await unpack(t, into);
  assert.deepEqual(files(root), ['zulip-export-1/realm.json']);
  const z = await zip([{ name: 'users.json', body: Buffer.from('[]') }, { name: 'general/2024-01-01.json', body: Buffer.from('[]') }]);
  const root2 = await unpack(z, path.join(tmp(), 'out'));
  assert.deepEqual(files(root2), ['general/2024-01-01.json', 'users.json']);
});

test('tar: climbing out, absolute names, links and devices are refused and nothing lands outside', async () => {
  const outside = tmp();
  await refused(await tarGz([{ header: { name: `../${path.basename(outside)}/evil` }, body: 'x' }]), /climbs out/);
  assert.deepEqual(files(outside), []);
  await refused(await tarGz([{ header: { name: '/tmp/parley-evil-abs' }, body: 'x' }]), /absolute path/);
  assert.equal(fs.existsSync('/tmp/parley-evil-abs'), false);
  await refused(await tarGz([{ header: { name: 'link', type: 'symlink', linkname: '/etc/passwd' } }]), /only files and folders/);
  await refused(await tarGz([{ header: { name: 'hard', type: 'link', linkname: 'realm.json' } }]), /only files and folders/);
  await refused(await tarGz([{ header: { name: 'dev', type: 'character-device' } }]), /only files and folders/);
  await refused(await tarGz([{ header: { name: 'a.json' }, body: '1' }, { header: { name: './a.json' }, body: '2' }]), /twice/);
});

test('tar: sizes are bounded, per file and in all, and a truncated archive fails', async () => {
  const big = Buffer.alloc(1000, 0x61);
  await refused(await tarGz([{ header: { name: 'big' }, body: big }]), /larger than 100 bytes/, { ...DEFAULT_LIMITS, maxEntryBytes: 100 });
  // A gzip bomb: a small archive whose files together unpack past the bound.
  await refused(await tarGz([{ header: { name: 'a' }, body: big }, { header: { name: 'b' }, body: big }]), /unpacks to more than 1500 bytes/, { ...DEFAULT_LIMITS, maxTotalBytes: 1500 });
  await refused(await tarGz([{ header: { name: 'a' }, body: '1' }, { header: { name: 'b' }, body: '2' }]), /more than 1 entries/, { ...DEFAULT_LIMITS, maxEntries: 1 });
  const good = await tarGz([{ header: { name: 'a' }, body: big }]);
  const cut = path.join(tmp(), 'cut.tar.gz');
  fs.writeFileSync(cut, fs.readFileSync(good).subarray(0, 40));
  await refused(cut, /not a readable archive/);
});

test('zip: links, climbing names, lying sizes and bombs are refused', async () => {
  await refused(await zip([{ name: 'link', body: Buffer.from('/etc/passwd'), mode: 0o120777 }]), /not a plain file/);
  const bomb = Buffer.alloc(100_000, 0);
  await refused(await zip([{ name: 'a', body: bomb }, { name: 'b', body: bomb }]), /unpacks to more than/, { ...DEFAULT_LIMITS, maxTotalBytes: 150_000 });
  await refused(await zip([{ name: 'a', body: bomb }]), /larger than/, { ...DEFAULT_LIMITS, maxEntryBytes: 1000 });
  // A zip whose directory says an entry is smaller than its data: the size check catches the lie.
  const honest = fs.readFileSync(await zip([{ name: 'a.json', body: Buffer.alloc(1000, 0x61) }]));
  const lying = Buffer.from(honest);
  const central = lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  lying.writeUInt32LE(4, central + 24);
  const local = lying.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  lying.writeUInt32LE(4, local + 22);
  const file = path.join(tmp(), 'lying.zip');
  fs.writeFileSync(file, lying);
  const into = await refused(file, /(declared|not a readable archive)/);
  assert.deepEqual(files(into).filter((f) => fs.statSync(path.join(into, f)).size > 4), []);
  // yauzl itself refuses names that climb out; the message still says which archive.
  const z = await zip([{ name: 'ok.json', body: Buffer.from('{}') }]);
  const raw = fs.readFileSync(z);
  const evil = Buffer.from(raw.toString('latin1').replace(/ok\.json/g, '../x.js'), 'latin1');
  const evilFile = path.join(tmp(), 'evil.zip');
  fs.writeFileSync(evilFile, evil);
  await refused(evilFile, /(climbs out|not a readable archive)/);
});

test('not an archive at all, and files named by the export that leave it', async () => {
  const junk = path.join(tmp(), 'junk.zip');
  fs.writeFileSync(junk, 'hello');
  await refused(junk, /neither a \.zip nor a \.tar\.gz/);
  await refused(path.join(tmp(), 'missing.tar.gz'), /no such file/);
  const root = tmp();
  fs.writeFileSync(path.join(root, 'in.txt'), 'x');
  fs.symlinkSync('/etc/hostname', path.join(root, 'link.txt'));
  assert.equal((await openInside(root, 'in.txt', 10)).size, 1);
  await assert.rejects(openInside(root, '../x', 10), ImportError);
  await assert.rejects(openInside(root, 'link.txt', 10), /not a plain file/);
  await assert.rejects(openInside(root, 'in.txt', 0), /larger than 0 bytes/);
});
