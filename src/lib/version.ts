/** What Parley reports of itself, under the spec's names and Zulip's (clients read the latter). */
export const FEATURE_LEVEL = 122;
export const ZULIP_VERSION = '5.0';
export const MERGE_BASE = '5.0';

/** Zulip's SERVER_GENERATION: one value per server process, so a client can tell it restarted. */
export const SERVER_GENERATION = Math.floor(Date.now() / 1000);

export function versionFields(): Record<string, unknown> {
  return {
    service_feature_level: FEATURE_LEVEL,
    zulip_feature_level: FEATURE_LEVEL,
    zulip_version: ZULIP_VERSION,
    service_merge_base: MERGE_BASE,
    zulip_merge_base: MERGE_BASE,
  };
}
