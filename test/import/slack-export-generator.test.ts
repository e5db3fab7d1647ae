import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { writeSlackExport } from '../../bench/lib/slack-export.js';

/**
 * The benchmark's generated Slack export (bench/lib/slack-export.ts), read back entry by entry
 * with yauzl: Slack's layout, valid JSON in Slack's shapes, the requested counts, and the same
 * bytes for the same options.
 */

type Json = Record<string, any>;

async function readZip(file: string, onEntry: (name: string, json: unknown) => void): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: true }, (e, z) => (e ? reject(e) : resolve(z))));
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', resolve);
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (e, s) => {
        if (e) return reject(e);
        const parts: Buffer[] = [];
        s.on('data', (d: Buffer) => parts.push(d));
        s.on('error', reject);
        s.on('end', () => {
          try {
            onEntry(entry.fileName, JSON.parse(Buffer.concat(parts).toString('utf8')));
          } catch (err) {
            return reject(new Error(`${entry.fileName}: ${(err as Error).message}`));
          }
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
}

function tempZip(): string {
  return path.join(os.tmpdir(), `parley-slack-gen-${process.pid}-${crypto.randomBytes(4).toString('hex')}.zip`);
}

test('20,000 messages: Slack\'s layout and shapes, the counts asked for, read back with yauzl', async () => {
  const file = tempZip();
  try {
    const ticks: number[] = [];
    const summary = await writeSlackExport(file, { messages: 20_000, onProgress: (w) => ticks.push(w) });
    assert.equal(ticks.at(-1), 20_000);
    assert.ok(ticks.every((w, i) => i === 0 || w >= ticks[i - 1]!), 'progress only grows');

    const tables: Record<string, Json[]> = {};
    const dayFiles = new Map<string, Json[]>();
    await readZip(file, (name, json) => {
      if (!name.includes('/')) tables[name] = json as Json[];
      else dayFiles.set(name, json as Json[]);
    });
    assert.deepEqual(Object.keys(tables).sort(), ['channels.json', 'dms.json', 'groups.json', 'integration_logs.json', 'mpims.json', 'users.json']);
    assert.equal(dayFiles.size + 6, summary.files);

    const users = tables['users.json']!;
    assert.equal(users.length, 1002);
    assert.equal(users.filter((u) => u.is_bot).length, 2);
    assert.equal(users.filter((u) => u.is_primary_owner).length, 1);
    assert.ok(users.some((u) => u.deleted) && users.some((u) => u.is_restricted) && users.some((u) => u.is_admin));
    assert.ok(users.filter((u) => !u.is_bot).every((u) => /^[a-z0-9.]+@bench\.example\.com$/.test(u.profile.email) && /^U[0-9A-Z]{10}$/.test(u.id)));
    const userIds = new Set(users.map((u) => u.id as string));

    const channels = [...tables['channels.json']!, ...tables['groups.json']!];
    assert.equal(channels.length, 100);
    assert.equal(tables['groups.json']!.length, 8);
    const general = channels.find((c) => c.name === 'general')!;
    assert.equal(general.is_general, true);
    assert.equal(general.members.length, 1000);
    for (const c of channels.filter((x) => x.name !== 'general')) {
      const humans = c.members.filter((m: string) => !users.find((u) => u.id === m)!.is_bot).length;
      assert.ok(humans >= 10 && humans <= 150, `${c.name}: ${humans} members`);
    }
    assert.ok(channels.some((c) => c.is_archived));
    assert.equal(new Set(channels.map((c) => c.name)).size, 100);
    const dms = tables['dms.json']!;
    const mpims = tables['mpims.json']!;
    assert.ok(dms.length > 0 && dms.every((d) => d.members.length === 2 && d.members.every((m: string) => userIds.has(m))));
    assert.ok(mpims.length > 0 && mpims.every((m) => m.name.startsWith('mpdm-') && m.members.length >= 3));

    // Folders are channel names, group-DM names and DM ids; files are days.
    const folders = new Set([...channels.map((c) => c.name), ...mpims.map((m) => m.name), ...dms.map((d) => d.id)]);
    let messages = 0;
    let replies = 0;
    let reacted = 0;
    let joins = 0;
    const markup = { mention: 0, channel: 0, link: 0, bold: 0 };
    const tsSeen = new Set<string>();
    const parents = new Map<string, number>();
    const days = new Set<string>();
    for (const [name, msgs] of dayFiles) {
      const [folder, day] = name.split('/') as [string, string];
      assert.ok(folders.has(folder), `unknown folder ${folder}`);
      assert.match(day, /^\d{4}-\d{2}-\d{2}\.json$/);
      days.add(day);
      assert.ok(Array.isArray(msgs) && msgs.length > 0, name);
      const dayStart = Date.parse(`${day.slice(0, 10)}T00:00:00Z`) / 1000;
      let prev = -Infinity;
      for (const m of msgs) {
        assert.equal(m.type, 'message');
        assert.match(m.ts, /^\d{10}\.\d{6}$/);
        const t = Number(m.ts);
        assert.ok(t >= prev, `${name}: not in time order`);
        assert.ok(t >= dayStart - 2 && t < dayStart + 86_400, `${name}: ${m.ts} outside its day`);
        prev = t;
        assert.ok(userIds.has(m.user), `${name}: unknown user ${m.user}`);
        assert.ok(!tsSeen.has(`${folder}/${m.ts}`), `${name}: ts ${m.ts} twice`);
        tsSeen.add(`${folder}/${m.ts}`);
        if (m.subtype === 'channel_join') {
          joins++;
          continue;
        }
        messages++;
        assert.equal(typeof m.text, 'string');
        if (m.reactions) {
          reacted++;
          for (const r of m.reactions) assert.equal(r.count, r.users.length);
        }
        if (m.thread_ts && m.thread_ts !== m.ts) {
          replies++;
          assert.ok(parents.has(`${folder}/${m.thread_ts}`), `${name}: reply before its parent`);
          parents.set(`${folder}/${m.thread_ts}`, parents.get(`${folder}/${m.thread_ts}`)! - 1);
        } else if (m.thread_ts) {
          parents.set(`${folder}/${m.ts}`, m.reply_count);
          assert.equal(m.replies.length, m.reply_count);
        }
        if (/<@U[0-9A-Z]{10}>/.test(m.text)) markup.mention++;
        if (/<#C[0-9A-Z]{10}\|[a-z0-9-]+>/.test(m.text)) markup.channel++;
        if (/<https:\/\/[^|>]+\|[^>]+>/.test(m.text)) markup.link++;
        if (/\*[a-z]+ [a-z]+\*/.test(m.text)) markup.bold++;
      }
    }
    assert.equal(messages, 20_000);
    assert.ok([...parents.values()].every((left) => left === 0), 'every parent has the replies it announces');
    assert.equal(joins, 100, 'one join notice per channel');
    assert.equal(replies, summary.threadReplies);
    assert.equal(reacted, summary.messagesWithReactions);
    assert.ok(replies > 1_500 && replies < 2_500, `replies ${replies}`);
    assert.ok(reacted > 700 && reacted < 1_300, `reactions on ${reacted}`);
    for (const [kind, n] of Object.entries(markup)) assert.ok(n > 100, `${kind}: ${n}`);
    assert.ok(days.size > 600 && days.size <= 730, `${days.size} days`);
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test('the same options give the same bytes; another seed, others', async () => {
  const [a, b, c] = [tempZip(), tempZip(), tempZip()];
  try {
    await writeSlackExport(a, { messages: 3_000, people: 200, channels: 20 });
    await writeSlackExport(b, { messages: 3_000, people: 200, channels: 20 });
    await writeSlackExport(c, { messages: 3_000, people: 200, channels: 20, seed: 7 });
    const hash = (f: string) => crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex');
    assert.equal(hash(a), hash(b));
    assert.notEqual(hash(a), hash(c));
  } finally {
    for (const f of [a, b, c]) fs.rmSync(f, { force: true });
  }
});
