import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ENGINE, testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { sendMessage } from '../helpers/messages.js';
import { createStreams } from '../helpers/streams.js';
import { uploadOne } from '../helpers/multipart.js';
import { startFakeS3 } from '../helpers/fake-s3.js';
import { sweepUploads } from '../../src/actions/upload-sweep.js';
import { attachments } from '../../src/store/repos/attachments.js';
import { nowSeconds } from '../../src/lib/time.js';
import { startJobs } from '../../src/jobs/scheduler.js';
import { scheduledJobs } from '../../src/jobs/schedule.js';
import { until } from '../helpers/until.js';

// The storage sweep (src/actions/upload-sweep.ts): what nothing links any more, past the
// grace period, leaves the storage and then the database; everything else stays. Ages are
// set on the rows (create_time) rather than waited for.
const DAY = 86_400;

const pathOf = (uri: string) => uri.slice('/user_uploads/'.length);
const onDisk = (t: TestApp, uri: string) => fs.existsSync(path.join(t.app.ctx.config.dataDir, 'uploads', ...pathOf(uri).split('/')));
const inDb = async (t: TestApp, uri: string) => (await attachments.findByPathId(t.app.ctx.store.db, pathOf(uri))) !== undefined;

/** Makes the upload look `days` old. */
async function age(t: TestApp, uri: string, days: number): Promise<void> {
  await t.app.ctx.store.db.updateTable('attachment').set({ create_time: nowSeconds() - days * DAY }).where('path_id', '=', pathOf(uri)).execute();
}

async function uploadAged(t: TestApp, as: TestUser, name: string, days: number): Promise<string> {
  const uri = await uploadOne(t, as, name, `bytes of ${name}`);
  await age(t, uri, days);
  return uri;
}

test('linked by a message, a draft or a scheduled message, or young: kept; unlinked and old: deleted from disk and database, after a dry run that only lists it', async () => {
  const t = await testApp({ backgroundJobs: false });
  try {
    const owner = t.owner;
    const { lobby } = await createStreams(t, { lobby: [owner] });
    const inMessage = await uploadAged(t, owner, 'in-message.txt', 30);
    await sendMessage(t, owner, { type: 'stream', to: 'lobby', topic: 'files', content: `[a](${inMessage})` });
    const young = await uploadAged(t, owner, 'young.txt', 20);
    const old = await uploadAged(t, owner, 'old.txt', 22);
    const inDraft = await uploadAged(t, owner, 'in-draft.txt', 30);
    assertOk(await t.api('POST', '/api/v1/drafts', { params: { drafts: [{ type: 'stream', to: [lobby.id], topic: 'later', content: `see [b](${inDraft})` }] } }));
    const inScheduled = await uploadAged(t, owner, 'in-scheduled.txt', 30);
    assertOk(await t.api('POST', '/api/v1/scheduled_messages', {
      params: { type: 'stream', to: String(lobby.id), topic: 'soon', content: `[c](${inScheduled})`, scheduled_delivery_timestamp: nowSeconds() + 3600 },
    }));
    // Its message deleted, a file is unlinked: collectable like one never linked.
    const wasLinked = await uploadAged(t, owner, 'was-linked.txt', 30);
    const id = await sendMessage(t, owner, { type: 'stream', to: 'lobby', topic: 'files', content: `[d](${wasLinked})` });
    assert.equal((await sweepUploads(t.app.ctx, { dryRun: true })).files.length, 1, 'linked by its message, it is not collectable yet');
    assertOk(await t.api('DELETE', `/api/v1/messages/${id}`));

    const dry = await sweepUploads(t.app.ctx, { dryRun: true });
    assert.deepEqual(dry.files.map((f) => f.pathId).sort(), [old, wasLinked].map(pathOf).sort());
    assert.equal(dry.bytes, 'bytes of old.txt'.length + 'bytes of was-linked.txt'.length);
    assert.ok(dry.files.every((f) => f.ageSecs >= 22 * DAY));
    for (const uri of [old, wasLinked]) assert.ok(onDisk(t, uri) && (await inDb(t, uri)), `dry run kept ${uri}`);

    const swept = await sweepUploads(t.app.ctx);
    assert.deepEqual(swept.files.map((f) => f.pathId).sort(), [old, wasLinked].map(pathOf).sort());
    assert.equal(swept.failed, 0);
    for (const uri of [old, wasLinked]) {
      assert.equal(onDisk(t, uri), false, `${uri} left the disk`);
      assert.equal(await inDb(t, uri), false, `${uri} left the database`);
    }
    for (const uri of [inMessage, young, inDraft, inScheduled]) assert.ok(onDisk(t, uri) && (await inDb(t, uri)), `${uri} kept`);
    // The young one's turn comes with time (the sweep's clock moved on two days).
    assert.deepEqual((await sweepUploads(t.app.ctx, { now: nowSeconds() + 2 * DAY })).files.map((f) => f.pathId), [pathOf(young)]);
    assert.equal(onDisk(t, young), false);
    assert.equal((await sweepUploads(t.app.ctx, { now: nowSeconds() + 2 * DAY })).files.length, 0, 'nothing twice');
  } finally {
    await t.close();
  }
});

test('the object first, the row after: an object the storage will not delete keeps its row for the next sweep; one already gone is no error', async () => {
  const t = await testApp({ backgroundJobs: false });
  try {
    const stuck = await uploadAged(t, t.owner, 'stuck.txt', 30);
    const vanished = await uploadAged(t, t.owner, 'vanished.txt', 30);
    fs.rmSync(path.join(t.app.ctx.config.dataDir, 'uploads', ...pathOf(vanished).split('/')));
    const storage = t.app.ctx.storage;
    const realDelete = storage.delete.bind(storage);
    storage.delete = async (key) => {
      if (key === pathOf(stuck)) throw new Error('storage unreachable');
      return realDelete(key);
    };
    const first = await sweepUploads(t.app.ctx);
    assert.deepEqual(first.files.map((f) => f.pathId), [pathOf(vanished)]);
    assert.equal(first.failed, 1);
    assert.equal(await inDb(t, vanished), false);
    assert.ok(onDisk(t, stuck) && (await inDb(t, stuck)), 'the stuck one is intact');
    storage.delete = realDelete;
    const second = await sweepUploads(t.app.ctx);
    assert.deepEqual(second.files.map((f) => f.pathId), [pathOf(stuck)]);
    assert.ok(!onDisk(t, stuck) && !(await inDb(t, stuck)));
  } finally {
    await t.close();
  }
});

test('on S3 (the fake): the object and the row go; --org keeps to one organization', async () => {
  const s3 = await startFakeS3();
  const t = await testApp({ backgroundJobs: false, s3Bucket: 'bucket', s3Endpoint: s3.endpoint, s3Region: 'us-east-1' });
  try {
    assert.equal(t.app.ctx.storage.kind, 's3');
    const old = await uploadAged(t, t.owner, 'old.txt', 30);
    const kept = await uploadAged(t, t.owner, 'kept.txt', 30);
    await createStreams(t, { lobby: [t.owner] });
    await sendMessage(t, t.owner, { type: 'stream', to: 'lobby', topic: 'files', content: `[k](${kept})` });
    assert.ok(s3.objects.has(pathOf(old)));
    assert.equal((await sweepUploads(t.app.ctx, { realmId: t.realm.id + 1000 })).files.length, 0, 'another organization has nothing');
    const swept = await sweepUploads(t.app.ctx, { realmId: t.realm.id });
    assert.deepEqual(swept.files.map((f) => f.pathId), [pathOf(old)]);
    assert.deepEqual(s3.deletes, [pathOf(old)]);
    assert.equal(s3.objects.has(pathOf(old)), false);
    assert.equal(await inDb(t, old), false);
    assert.ok(s3.objects.has(pathOf(kept)) && (await inDb(t, kept)));
  } finally {
    await t.close();
    await s3.close();
  }
});

test('registered with the scheduler: swept at its start; the app starts it unless told not to, and runNow sweeps at once', async () => {
  const t = await testApp({ backgroundJobs: false });
  try {
    assert.equal(t.app.ctx.jobs, undefined, 'backgroundJobs: false starts none');
    const old = await uploadAged(t, t.owner, 'old.txt', 30);
    const jobs = startJobs(t.app.ctx, scheduledJobs());
    try {
      await until(async () => !(await inDb(t, old)), { message: 'the sweep at start' });
      assert.equal(onDisk(t, old), false);
    } finally {
      await jobs.stop();
    }
  } finally {
    await t.close();
  }
  const u = await testApp();
  try {
    assert.ok(u.app.ctx.jobs, 'jobs start with the app');
    const old = await uploadAged(u, u.owner, 'old.txt', 30);
    assert.equal(await u.app.ctx.jobs.runNow('storage-sweep'), true);
    assert.equal(await inDb(u, old), false);
  } finally {
    await u.close();
  }
});

// The command's store code is the sweep above, on both engines; the command itself on SQLite, as the other CLI tests.
test('parley storage sweep: --dry-run lists path, size and age and deletes nothing; then it deletes, with a summary line', { skip: ENGINE !== 'sqlite', timeout: 120_000 }, async (tc) => {
  const t = await testApp({ backgroundJobs: false });
  const dir = t.app.ctx.config.dataDir;
  tc.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const old = await uploadAged(t, t.owner, 'old.txt', 30);
  await uploadAged(t, t.owner, 'young.txt', 1);
  await t.app.close();
  const parley = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'storage', 'sweep', ...args, '--data-dir', dir], { env: { ...process.env }, encoding: 'utf8' });
  const file = path.join(dir, 'uploads', ...pathOf(old).split('/'));

  const dry = parley('--dry-run');
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, new RegExp(`^${pathOf(old).replace(/[.]/g, '\\.')}\t${'bytes of old.txt'.length} bytes\t30\\.0 days\n`));
  assert.match(dry.stdout, /\n1 unlinked uploads older than 21 days, 0\.0 MiB: would be deleted \(dry run\)\n$/);
  assert.match(dry.stderr, /storage sweep: 1 files, 0\.0 MiB found so far/);
  assert.ok(fs.existsSync(file));

  const bad = parley('--org', 'nowhere');
  assert.equal(bad.status, 1);
  assert.equal(bad.stderr, "parley: No organization with string id 'nowhere'\n");

  const real = parley();
  assert.equal(real.status, 0, real.stderr);
  assert.equal(real.stdout, '1 unlinked uploads older than 21 days, 0.0 MiB: deleted\n');
  assert.equal(fs.existsSync(file), false);
  assert.equal(parley('--grace-days', '0').stdout, '1 unlinked uploads older than 0 days, 0.0 MiB: deleted\n');
});
