import fs from 'node:fs';

/**
 * Zulip's canonical emoji names (first) and aliases, for the codes where Zulip's
 * naming differs from emoji-datasource's. From Zulip's emoji name table
 * (tools/setup/emoji/emoji_names.py); the common ones people type and react with.
 * The table itself is data: zulip-names.json beside this file (copied into dist/ by the build).
 */
export const ZULIP_NAMES: Record<string, string[]> = JSON.parse(
  fs.readFileSync(new URL('./zulip-names.json', import.meta.url), 'utf8'),
) as Record<string, string[]>;
