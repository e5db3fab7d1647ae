/**
 * Reaction emoji: Slack names them as iamcal's emoji-data does (Slack's own table), so a name
 * goes to a codepoint through that data and then to Zulip's name for the codepoint; other
 * names are the workspace's custom emoji, known only through Slack's emoji.list API.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { nameForCode } from '../../emoji/index.js';
import { ImportError, type Row } from '../source.js';
import { isObj } from './json.js';

interface DatasourceEntry { unified: string; non_qualified: string | null; short_name: string; short_names: string[] }

let slackNames: Map<string, string> | undefined;

function slackNameToCode(): Map<string, string> {
  if (slackNames) return slackNames;
  const require = createRequire(import.meta.url);
  const entries = JSON.parse(fs.readFileSync(require.resolve('emoji-datasource/emoji.json'), 'utf8')) as DatasourceEntry[];
  const map = new Map<string, string>();
  for (const e of entries) {
    const code = (e.non_qualified ?? e.unified).toLowerCase();
    map.set(e.short_name, code);
    for (const n of e.short_names) if (n !== e.short_name) map.set(n, code);
  }
  return (slackNames = map);
}

export interface Emoji { emoji_name: string; emoji_code: string; reaction_type: 'unicode_emoji' | 'realm_emoji' }

/** A Slack reaction name (`clap::skin-tone-2` counts as `clap`), or undefined when nothing matches. */
export function emojiForSlackName(slackName: string, realmEmoji: ReadonlyMap<string, number>): Emoji | undefined {
  const name = slackName.split('::')[0]!;
  const code = slackNameToCode().get(name);
  if (code !== undefined) {
    const zulipName = nameForCode(code);
    return zulipName === undefined ? undefined : { emoji_name: zulipName, emoji_code: code, reaction_type: 'unicode_emoji' };
  }
  const id = realmEmoji.get(name);
  return id === undefined ? undefined : { emoji_name: name, emoji_code: String(id), reaction_type: 'realm_emoji' };
}

export interface CustomEmoji { rows: Row[]; urls: Map<string, string>; records: Row[] }

const EXTENSIONS: Record<string, string> = { png: '.png', gif: '.gif', jpg: '.jpg', jpeg: '.jpeg', webp: '.webp' };

/**
 * The workspace's custom emoji from emoji.list, as Zulip's build_realmemoji: only images on
 * emoji.slack-edge.com (aliases and broken entries have other values).
 */
export async function fetchCustomEmoji(fetchFn: typeof globalThis.fetch, token: string, realmId: number): Promise<CustomEmoji> {
  let body: unknown;
  try {
    const res = await fetchFn('https://slack.com/api/emoji.list', { headers: { Authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = await res.json();
  } catch (e) {
    throw new ImportError(`Slack API emoji.list failed: ${(e as Error).message}`);
  }
  if (!isObj(body) || body.ok !== true || !isObj(body.emoji)) {
    throw new ImportError(`Slack API emoji.list failed: ${isObj(body) && typeof body.error === 'string' ? body.error : 'unexpected answer'}`);
  }
  const out: CustomEmoji = { rows: [], urls: new Map(), records: [] };
  for (const [name, url] of Object.entries(body.emoji)) {
    if (typeof url !== 'string') continue;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      continue;
    }
    const ext = EXTENSIONS[parsed.pathname.split('.').pop()?.toLowerCase() ?? ''];
    if (parsed.hostname !== 'emoji.slack-edge.com' || !ext) continue;
    const id = out.rows.length + 1;
    const fileName = `${id}${ext}`;
    out.rows.push({ id, realm: realmId, name, file_name: fileName, deactivated: false, author: null });
    const path = `${realmId}/emoji/images/${fileName}`;
    out.records.push({ path, s3_path: path, file_name: fileName, name, id, realm_id: realmId });
    out.urls.set(path, url);
  }
  return out;
}
