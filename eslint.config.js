// ESLint (flat config): typescript-eslint's recommended rules, and the layer rules of
// ../shared/docs/architecture.md written down as import restrictions per folder.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const LAYER_SEVERITY = 'error';

// Import specifiers are matched as written (gitignore-style globs), so '**/store/**' is any
// relative import that goes through a folder named store: '../store/db.js',
// '../../store/repos/users.js'. Within a folder imports are './x.js' and never match.
const layer = (name, why, allowTypeImports = false) => ({ group: [`**/${name}/**`], allowTypeImports, message: why });
const UP = 'arrows point down only: http -> actions | reads -> access, store, cache (architecture.md)';
const ban = {
  http: layer('http', 'only src/http/, src/app.ts and src/cli/ import from http/: nothing below the HTTP edge may depend on it'),
  actions: layer('actions', `actions are the writers, called from the edges (http/, cli/, webhooks, tests); ${UP}`),
  reads: layer('reads', `reads are called from the edges; ${UP}`),
  access: layer('access', `access checks load as a user (I/O); ${UP}`),
  events: layer('events', `${UP}; events/ publishes what actions queue`),
  presenters: layer('presenters', `presenters format for the wire; ${UP}`),
  cache: layer('cache', `caches sit behind actions and reads; ${UP}`),
  // Row types travel up through every layer from src/rows.ts; the layers that must not know
  // the store (the edge, presenters) import nothing from it, types included.
  store: layer('store', `no queries here: run them in an action or a read and pass the rows in (row types come from src/rows.ts); ${UP}`),
  eventsValues: layer('events', 'no I/O here: nothing from events/ but its types', true),
  cluster: layer('cluster', `the cluster wires itself onto the event system (src/wiring.ts hands the manager its handover); ${UP}`),
  markdown: layer('markdown', 'lib/ is the bottom layer: markdown/ uses it, not the other way round'),
};
const noIo = (message) => ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'child_process', 'worker_threads', 'dgram']
  .flatMap((m) => [m, `node:${m}`])
  .concat(['better-sqlite3', 'pg', 'kysely'])
  .map((name) => ({ name, allowTypeImports: true, message }));
const NO_IO_MODULES = noIo('presenters are pure: row in, wire object out, no I/O');
// Everything that loads, writes or publishes: what a pure core or a leaf service must not reach.
const ABOVE_THE_LEAVES = [ban.http, ban.actions, ban.reads, ban.access, ban.presenters, ban.cache, ban.store, ban.events];

const ONE_WAY_OUT = {
  selector: "CallExpression[callee.property.name='publish'][callee.object.type='MemberExpression'][callee.object.property.name='bus']",
  message: 'events leave through publish() in src/events/publish.ts, after commit',
};
// The one id bound (lib/ids.ts) and the one name for each recipient type (lib/recipient-type.ts).
const ID_BOUND = {
  selector: "Literal[value=2147483647]:not(VariableDeclarator[id.name='MAX_ID'] > Literal)",
  message: 'the 32-bit id bound is MAX_ID, fitsIdColumn() or isPossibleId() in src/lib/ids.ts',
};
const RECIPIENT_TYPES = {
  selector: "BinaryExpression[operator=/^[!=]==?$/]:matches([right.value=1],[right.value=2],[right.value=3])[left.property.name=/^(type|recipient_type)$/]",
  message: 'recipient types by name: RecipientType.PERSONAL, STREAM or HUDDLE (src/lib/recipient-type.ts)',
};
const SOURCE_SYNTAX = [ONE_WAY_OUT, ID_BOUND, RECIPIENT_TYPES];
// An action named doX composes inside its caller's transaction, so it takes that Tx first.
const DO_TAKES_TX = {
  selector: "FunctionDeclaration[id.name=/^do[A-Z]/]:not([params.0.typeAnnotation.typeAnnotation.typeName.name='Tx'])",
  message: "doX(tx: Tx, ...) runs in its caller's transaction; an action that opens its own writes takes ctx and has no do prefix (README, How the code is organised)",
};
// Handlers read their declared parameters (r.args); the raw bag is for webhooks' own ones.
const DECLARED_ARGS = {
  selector: "MemberExpression[object.name='r'][property.name='params']",
  message: "declare the parameter in the route's params and read r.args (src/schemas/params.ts)",
};

// Kysely's query starters and runners, and raw SQL: only src/store/ builds and runs queries.
const QUERY_BUILDERS = ['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto', 'selectNoFrom',
  'execute', 'executeTakeFirst', 'executeTakeFirstOrThrow', 'executeQuery'];
const NO_QUERIES = ['src/actions/**/*.ts', 'src/reads/**/*.ts', 'src/access/**/*.ts', 'src/import/**/*.ts', 'src/export/**/*.ts'];
const NO_RAW_SQL = { name: 'kysely', importNames: ['sql'], message: 'no SQL here: write a repo function in src/store/repos and call it' };

// Each source file gets exactly one of these (flat config replaces a rule's options
// rather than merging them, so a file under two entries would lose one list).
const LAYERS = [
  // The edge: calls one action or one read and returns a presenter's output.
  { folder: 'http', bans: [ban.store, ban.cache] },
  { folder: 'actions', bans: [ban.http], paths: [NO_RAW_SQL] },
  { folder: 'reads', bans: [ban.http, ban.actions], paths: [NO_RAW_SQL] },
  { folder: 'access', bans: [ban.http, ban.actions, ban.reads, ban.events, ban.presenters], paths: [NO_RAW_SQL] },
  { folder: 'presenters', bans: [ban.http, ban.actions, ban.reads, ban.access, ban.cache, ban.store, ban.eventsValues], paths: NO_IO_MODULES },
  { folder: 'cache', bans: [ban.http, ban.actions, ban.reads, ban.access, ban.presenters] },
  { folder: 'store', bans: [ban.http, ban.actions, ban.reads, ban.events, ban.presenters, ban.cache, ban.access] },
  { folder: 'events', bans: [ban.http, ban.actions, ban.cluster] },
  // Request budgets, the mail transport and the upload back ends: leaf services below
  // everything that asks (they know their own backing store, not Parley's).
  ...['ratelimit', 'mail', 'uploads'].map((folder) => ({ folder, bans: ABOVE_THE_LEAVES })),
  // The cluster's shared state (Redis): carries events/ and queues, knows no store or request.
  { folder: 'cluster', bans: [ban.http, ban.actions, ban.reads, ban.access, ban.presenters, ban.cache, ban.store] },
  // Outgoing-webhook deliveries: the send path hands them jobs, so they sit below actions/;
  // a delivery posts its reply through the send action handed in by src/wiring.ts.
  { folder: 'outgoing-webhooks', bans: [ban.http, ban.actions] },
  // Missed-message notifications (email, mobile push, digest): workers fed after the send
  // commits; actions (mark read, device tokens) call down into them, never the reverse.
  { folder: 'notifications', bans: [ban.http, ban.actions] },
  // The periodic jobs' scheduler and their list: like the edges, they call actions and never query.
  { folder: 'jobs', bans: [ban.http, ban.store] },
  // The importer loads a new organization through actions (import/load/); converters only read files.
  { folder: 'import', bans: [ban.http] },
  { folder: 'export', bans: [ban.http, ban.actions] },
  // Narrow parsing and matching is pure: resolving names (reads/narrow-resolve.ts) and the
  // SQL back end (store/narrow-sql.ts) live with the I/O.
  { folder: 'narrow', bans: ABOVE_THE_LEAVES, paths: noIo('narrow/ is pure: parse and match, no store and no I/O (resolving is reads/narrow-resolve.ts, SQL is store/narrow-sql.ts)') },
  // Helpers shared by every layer: the bottom (row types come from src/rows.ts).
  { folder: 'lib', bans: [...ABOVE_THE_LEAVES, ban.markdown] },
  // Pure cores: below the writers.
  ...['markdown', 'emoji', 'webhooks'].map((folder) => ({ folder, bans: [ban.http, ban.actions] })),
];
const layered = LAYERS.map((l) => `src/${l.folder}/**`);
// Entry points and wiring (main.ts, app.ts, open-context.ts, wiring.ts, cli/) may import anything.
const ENTRIES = ['src/main.ts', 'src/app.ts', 'src/open-context.ts', 'src/wiring.ts', 'src/cli/**'];

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'data/', 'scratch-tmp/', 'tmp/', 'web/dist/', 'web/dist.*/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // CommonJS preloads (node --require) of the tests.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    rules: {
      // Tests and benchmarks read JSON bodies as `any`; the sources are typed (below).
      '@typescript-eslint/no-explicit-any': 'off',
      // Sanitisers and validators match control characters on purpose.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-expressions': ['error', { allowTernary: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  ...LAYERS.map(({ folder, bans, paths = [] }) => ({
    files: [`src/${folder}/**/*.ts`],
    rules: { '@typescript-eslint/no-restricted-imports': [LAYER_SEVERITY, { paths, patterns: bans }] },
  })),
  // Everything else under src/ (config.ts, errors.ts, context.ts, folders yet to come).
  {
    files: ['src/**/*.ts'],
    ignores: [...layered, ...ENTRIES],
    rules: { '@typescript-eslint/no-restricted-imports': [LAYER_SEVERITY, { patterns: [ban.http] }] },
  },
  {
    // No `any` in the server or the web app. Landed migrations are exempt: they are never
    // edited, and run against Kysely<any> as Kysely advises for migrations (MigrationDb in
    // src/store/migrations/index.ts, the one commented exception).
    files: ['src/**/*.ts', 'web/src/**/*.ts', 'web/src/**/*.tsx'],
    ignores: ['src/store/migrations/[0-9]*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  {
    // One way out for events: publish() (src/events/publish.ts) after commit.
    files: ['src/**/*.ts'],
    ignores: ['src/events/publish.ts', ...NO_QUERIES],
    rules: { 'no-restricted-syntax': ['error', ...SOURCE_SYNTAX] },
  },
  {
    files: ['src/http/handlers/**/*.ts'],
    ignores: ['src/http/handlers/webhooks.ts'],
    rules: { 'no-restricted-syntax': ['error', ...SOURCE_SYNTAX, DECLARED_ARGS] },
  },
  {
    // Queries live in src/store/repos (data verbs: findById, insert, listByMessageIds...);
    // actions, reads and access checks call them. Same list as above plus the query builders
    // (flat config replaces a rule's options, it does not merge them).
    files: NO_QUERIES,
    rules: {
      'no-restricted-syntax': ['error', ...SOURCE_SYNTAX, DO_TAKES_TX, {
        selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=/^(${QUERY_BUILDERS.join('|')})$/]`,
        message: 'no queries here: write a repo function in src/store/repos and call it',
      }],
    },
  },
);
