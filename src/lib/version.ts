/**
 * What Parley reports of itself, under the spec's names and Zulip's (clients read the latter).
 *
 * The reported feature level is a setting (PARLEY_FEATURE_LEVEL): 122, the interface of the
 * spec, or `latest`, the highest level whose every changelog entry Parley implements
 * (docs/api-changelog.md). Requests of every level are accepted at either setting, as Zulip
 * keeps old clients working; only what a level changes in an answer's shape follows it.
 */
export const SPEC_FEATURE_LEVEL = 122;

/**
 * The highest level Parley implements completely: every entry of Zulip's API changelog from
 * 123 up to it (docs/api-changelog.md). Raised only when the next level's entries are all done.
 */
export const LATEST_FEATURE_LEVEL = 372;

/** Zulip's releases by the feature level each shipped with (api_docs/changelog.md). */
const RELEASES: ReadonlyArray<readonly [level: number, version: string]> = [
  [122, '5.0'], [156, '6.0'], [185, '7.0'], [237, '8.0'], [277, '9.0'], [371, '10.0'], [372, '10.1'],
];

/**
 * The Zulip version a level corresponds to: the release's own name at a release's level, and
 * between releases the next one's development version (Zulip's `6.0-dev`). The merge base is
 * the last release at or below the level.
 */
export function zulipVersionOf(level: number): { version: string; mergeBase: string } {
  const at = RELEASES.filter(([l]) => l <= level).at(-1) ?? RELEASES[0]!;
  if (at[0] === level) return { version: at[1], mergeBase: at[1] };
  const next = RELEASES.find(([l]) => l > level);
  return { version: next ? `${next[1]}-dev` : `${at[1]}+`, mergeBase: at[1] };
}

/** Zulip's SERVER_GENERATION: one value per server process, so a client can tell it restarted. */
export const SERVER_GENERATION = Math.floor(Date.now() / 1000);

export interface VersionFields {
  service_feature_level: number;
  zulip_feature_level: number;
  zulip_version: string;
  service_merge_base: string;
  zulip_merge_base: string;
}

export function versionFields(level: number): VersionFields {
  const { version, mergeBase } = zulipVersionOf(level);
  return {
    service_feature_level: level,
    zulip_feature_level: level,
    zulip_version: version,
    service_merge_base: mergeBase,
    zulip_merge_base: mergeBase,
  };
}

/** PARLEY_FEATURE_LEVEL's value: `122` (the default) or `latest`. */
export function parseFeatureLevel(v: string | undefined): number {
  const s = (v ?? '').trim().toLowerCase();
  if (s === '' || s === String(SPEC_FEATURE_LEVEL)) return SPEC_FEATURE_LEVEL;
  if (s === 'latest' || s === String(LATEST_FEATURE_LEVEL)) return LATEST_FEATURE_LEVEL;
  throw new Error(`PARLEY_FEATURE_LEVEL must be ${SPEC_FEATURE_LEVEL} or latest (${LATEST_FEATURE_LEVEL}), got '${v}'`);
}
