/** A stand-in for Slack's file and API hosts: every answer needs the token, as Slack's do; and exports zipped as Slack ships them. */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import yazl from 'yazl';
import type { AddressInfo } from 'node:net';
import { scratchDir } from './scratch.js';

export const SLACK_TOKEN = 'xoxb-test';

/** What the fixture workspace (test/fixtures/slack/workspace) links, by host and path. */
export const SLACK_FILES: Record<string, string> = {
  '/files.slack.com/files-pri/T1-F2/pic.png': 'PNGBYTES',
  '/files.slack.com/files-pri/T1-F5/plan.pdf': '%PDF-',
  '/ca.slack-edge.com/T1-U1-abc123-512': 'alice-avatar',
  '/avatars.slack-edge.com/ci_72.png': 'ci-icon',
  '/emoji.slack-edge.com/T1/partyparrot/abc.gif': 'GIF89a',
};
export const SLACK_EMOJI_LIST = { ok: true, emoji: { partyparrot: 'https://emoji.slack-edge.com/T1/partyparrot/abc.gif', shipit: 'alias:squirrel', bad: 'https://example.com/x.png' } };

export interface FakeSlack {
  /** Slack's hosts, served here: https://host/path -> http://127.0.0.1:port/host/path. */
  fetch: typeof globalThis.fetch;
  requested: string[];
  close(): Promise<void>;
}

export async function fakeSlack(files: Record<string, string | Buffer> = SLACK_FILES): Promise<FakeSlack> {
  const requested: string[] = [];
  const server = http.createServer((req, res) => {
    requested.push(req.url!);
    if (req.headers.authorization !== `Bearer ${SLACK_TOKEN}`) return void res.writeHead(403).end('no');
    if (req.url === '/slack.com/api/emoji.list') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SLACK_EMOJI_LIST));
    const body = files[req.url!];
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    fetch: (input, init) => {
      const u = new URL(String(input));
      return globalThis.fetch(`${base}/${u.host}${u.pathname}${u.search}`, init);
    },
    requested,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The fixture folder zipped as Slack ships it: files at the top. */
export async function zipFolder(dir: string): Promise<string> {
  const z = new yazl.ZipFile();
  for (const d of fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[]) {
    if (!d.isFile()) continue;
    const full = path.join(d.parentPath, d.name);
    z.addFile(full, path.relative(dir, full));
  }
  z.end();
  const out = path.join(scratchDir('parley-slack-zip-'), 'export.zip');
  await new Promise<void>((resolve, reject) => z.outputStream.pipe(fs.createWriteStream(out)).on('close', resolve).on('error', reject));
  return out;
}
