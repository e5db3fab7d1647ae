/**
 * Which files each suite runs. Every file runs in the first suite (SQLite at level 122, the
 * default configuration); the later suites leave out only what cannot differ there, so the
 * whole run stays inside CI's time on a slow day:
 * - browser tests drive the web app through the same API the rest of the suite checks on
 *   both engines and both levels, so they run in the first suite only;
 * - at `latest`, the files whose subject does not depend on the reported level (the store,
 *   the command line, the proxy, import and export formats, sign-in protocols, markdown,
 *   request budgets, caches) are not run again (none of them reads FEATURE_LEVEL;
 *   test/runner/suite-selection.test.ts checks that).
 * PARLEY_TEST_ALL=1 runs every file in every suite.
 */
export const isBrowserTest = (f: string): boolean => /(^|\/)browser-[^/]*\.test\.ts$/.test(f);
export const LEVEL_FREE = [
  'test/store/', 'test/ops/', 'test/import/', 'test/export/', 'test/sso/', 'test/runner/', 'test/lib/',
  'test/markdown/', 'test/ratelimit/', 'test/cache/',
  'test/foundation/cli.test.ts', 'test/foundation/serve.test.ts', 'test/foundation/build.test.ts', 'test/foundation/crash.test.ts',
  'test/foundation/data-at-rest.test.ts', 'test/foundation/multipart-flood.test.ts', 'test/foundation/realm-host.test.ts',
  'test/notifications/digest-cli.test.ts', 'test/cluster/workers.test.ts',
];
const everywhere = process.env.PARLEY_TEST_ALL === '1';
export const notBrowser = (list: string[]) => everywhere ? list : list.filter((f) => !isBrowserTest(f));
export const levelBound = (list: string[]) => everywhere ? list : notBrowser(list).filter((f) => !LEVEL_FREE.some((p) => f.startsWith(p)));

