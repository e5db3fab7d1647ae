import fs from 'node:fs';
import { createRequire } from 'node:module';
import { ZULIP_NAMES } from './zulip-names.js';

/**
 * Unicode emoji names and codes. The data comes from emoji-datasource; Zulip's own
 * canonical names replace the dataset's where they differ (Zulip calls U+1F642 "smile").
 * A code is Zulip's emoji_code: lowercase hex codepoints joined by '-', without the
 * FE0F presentation selector when the dataset lists an unqualified form.
 */
interface EmojiData { byName: Map<string, string>; nameOfCode: Map<string, string>; unicode: RegExp; codeOfChars: Map<string, string> }

let data: EmojiData | undefined;

interface DatasourceEntry { unified: string; non_qualified: string | null; short_names: string[] }

function load(): EmojiData {
  const require = createRequire(import.meta.url);
  const entries = JSON.parse(fs.readFileSync(require.resolve('emoji-datasource/emoji.json'), 'utf8')) as DatasourceEntry[];
  const byName = new Map<string, string>();
  const nameOfCode = new Map<string, string>();
  const codeOfChars = new Map<string, string>();
  const overridden = new Set(Object.keys(ZULIP_NAMES));
  const zulipNames = new Set(Object.values(ZULIP_NAMES).flat());
  for (const e of entries) {
    // Zulip leaves out sequences joined by ZWJ and bare skin-tone modifiers.
    if (e.unified.includes('200D') || /^1F3F[B-F]$/.test(e.unified)) continue;
    const code = (e.non_qualified ?? e.unified).toLowerCase();
    for (const form of [e.unified, e.non_qualified]) {
      if (form) codeOfChars.set(String.fromCodePoint(...form.split('-').map((h) => parseInt(h, 16))), code);
    }
    if (overridden.has(code)) continue;
    const names = e.short_names.filter((n) => !zulipNames.has(n));
    if (names.length === 0) continue;
    nameOfCode.set(code, names[0]!);
    for (const n of names) if (!byName.has(n)) byName.set(n, code);
  }
  for (const [code, names] of Object.entries(ZULIP_NAMES)) {
    nameOfCode.set(code, names[0]!);
    for (const n of names) byName.set(n, code);
  }
  // Longest sequences first so that a flag or keycap wins over its first codepoint.
  const alternatives = [...codeOfChars.keys()].sort((a, b) => b.length - a.length).map(escapeRegex);
  // A sequence joined by ZWJ (🤷‍♀️) is matched whole, so that it is never split into its
  // parts; having no code of its own here, it then stays as the characters typed.
  return { byName, nameOfCode, codeOfChars, unicode: new RegExp([ZWJ_SEQUENCE, ...alternatives].join('|'), 'gu') };
}

const ZWJ_PART = '\\p{Extended_Pictographic}(?:\\uFE0F|\\p{Emoji_Modifier})?';
const ZWJ_SEQUENCE = `${ZWJ_PART}(?:\\u200D${ZWJ_PART})+`;
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const get = () => (data ??= load());

export function emojiCodeForName(name: string): string | undefined {
  return get().byName.get(name);
}

export function nameForCode(code: string): string | undefined {
  return get().nameOfCode.get(code);
}

/** A regex (global) matching any known unicode emoji, and the code for a match. */
export function unicodeEmojiPattern(): RegExp {
  return new RegExp(get().unicode.source, 'gu');
}

export function codeForChars(chars: string): string | undefined {
  return get().codeOfChars.get(chars);
}

/** Every name the server takes (canonical names and aliases) and the code each means. */
export function emojiNames(): ReadonlyMap<string, string> {
  return get().byName;
}
