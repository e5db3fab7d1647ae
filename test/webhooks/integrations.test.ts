import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createStreams } from '../helpers/streams.js';
import { createWebhookBot, postWebhook, newestMessage, messageCount, fixture } from '../helpers/webhooks.js';

/**
 * Each integration on its recorded payloads (test/fixtures/webhooks/<integration>/), through
 * HTTP: the exact topic and body Zulip's integration posts for it.
 */
let t: TestApp;
let hook: TestUser;

before(async () => {
  t = await testApp();
  await createStreams(t, { dev: [t.owner] });
  hook = await createWebhookBot(t);
});
after(() => t.close());

interface Case {
  integration: string;
  fixture: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  topic: string;
  body: string;
}

const GH = 'https://github.com/baxterthehacker/public-repo';
const GL = 'https://gitlab.example.com/tomaszkolek0/my-awesome-project';
const CASES: Case[] = [
  {
    integration: 'github', fixture: 'push__1_commit', headers: { 'X-GitHub-Event': 'push' }, topic: 'public-repo / changes',
    body: `baxterthehacker [pushed](${GH}/compare/9049f1265b7d...0d1a26e67d8f) 1 commit to branch changes.\n\n`
      + `* Update README.md ([0d1a26e](${GH}/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c))`,
  },
  {
    integration: 'github', fixture: 'push__multiple_committers', headers: { 'X-GitHub-Event': 'push' }, topic: 'chat / master',
    body: 'alice [pushed](https://github.com/parley/chat/compare/2a5b3fd7a8b7...6a8c1f5c9e0e) 3 commits to branch master. Commits by alice (2) and bob (1).\n\n'
      + '* Fix the typo in the README ([1111111](https://github.com/parley/chat/commit/1111111aaaaaaa1111111aaaaaaa1111111aaaaa))\n'
      + '* Add webhooks ([2222222](https://github.com/parley/chat/commit/2222222bbbbbbb2222222bbbbbbb2222222bbbbb))\n'
      + '* Test webhooks ([3333333](https://github.com/parley/chat/commit/3333333ccccccc3333333ccccccc3333333ccccc))',
  },
  {
    integration: 'github', fixture: 'issues__opened', headers: { 'X-GitHub-Event': 'issues' }, topic: 'public-repo / Issue #2 Spelling error in the README file',
    body: `baxterthehacker opened [Issue #2](${GH}/issues/2):\n\n~~~ quote\nIt looks like you accidently spelled 'commit' with two 't's.\n~~~`,
  },
  {
    // A topic of the caller's: the title moves into the body.
    integration: 'github', fixture: 'issues__opened', headers: { 'X-GitHub-Event': 'issues' }, query: { topic: 'bugs' }, topic: 'bugs',
    body: `baxterthehacker opened [Issue #2 Spelling error in the README file](${GH}/issues/2):\n\n~~~ quote\nIt looks like you accidently spelled 'commit' with two 't's.\n~~~`,
  },
  {
    integration: 'github', fixture: 'issue_comment__created', headers: { 'X-GitHub-Event': 'issue_comment' }, topic: 'public-repo / Issue #2 Spelling error in the README file',
    body: `baxterthehacker [commented](${GH}/issues/2#issuecomment-99262140) on [Issue #2](${GH}/issues/2):\n\n~~~ quote\nYou are totally right! I'll get this fixed right away.\n~~~`,
  },
  {
    integration: 'github', fixture: 'pull_request__opened', headers: { 'X-GitHub-Event': 'pull_request' }, topic: 'public-repo / PR #1 Update the README with new information',
    body: `baxterthehacker opened [PR #1](${GH}/pull/1) from \`baxterthehacker:changes\` to \`baxterthehacker:master\`:\n\n~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~`,
  },
  {
    integration: 'github', fixture: 'pull_request__closed_merged', headers: { 'X-GitHub-Event': 'pull_request' }, topic: 'public-repo / PR #1 Update the README with new information',
    body: `baxterthehacker merged [PR #1](${GH}/pull/1).`,
  },
  {
    integration: 'github', fixture: 'ping', headers: { 'X-GitHub-Event': 'ping' }, topic: 'public-repo',
    body: 'GitHub webhook has been successfully configured by baxterthehacker.',
  },
  {
    integration: 'gitlab', fixture: 'push_hook', headers: { 'X-Gitlab-Event': 'Push Hook' }, topic: 'my-awesome-project / tomek',
    body: `Tomasz Kolek [pushed](${GL}/compare/5fcdd5551fe1b5a8f3c4ac2a4be1d1f6ae1f7a27...eb6f7b0ab3a2dcb7b4d1e1b2e4b6d7f1c2a3b4c5) 2 commits to branch tomek.\n\n`
      + `* b ([66abd2d](${GL}/commit/66abd2da28809ffa128ed0447965cf11d7f863a7))\n* c ([eb6f7b0](${GL}/commit/eb6f7b0ab3a2dcb7b4d1e1b2e4b6d7f1c2a3b4c5))`,
  },
  {
    integration: 'gitlab', fixture: 'push_hook__remove_branch', headers: { 'X-Gitlab-Event': 'Push Hook' }, topic: 'my-awesome-project / tomek',
    body: 'Tomasz Kolek deleted branch tomek.',
  },
  {
    integration: 'gitlab', fixture: 'issue_hook__created', headers: { 'X-Gitlab-Event': 'Issue Hook' }, topic: 'my-awesome-project / Issue #23 Issue title',
    body: `Tomasz Kolek created [Issue #23](${GL}/issues/23) (assigned to Tomasz Kolek):\n\n~~~ quote\nIssue description\n~~~`,
  },
  {
    integration: 'gitlab', fixture: 'issue_hook__closed', headers: { 'X-Gitlab-Event': 'Issue Hook' }, topic: 'my-awesome-project / Issue #23 Issue title_new',
    body: `Tomasz Kolek closed [Issue #23](${GL}/issues/23).`,
  },
  {
    integration: 'gitlab', fixture: 'merge_request_hook__opened', headers: { 'X-Gitlab-Event': 'Merge Request Hook' }, topic: 'my-awesome-project / MR #2 NEW MR',
    body: `Tomasz Kolek created [MR #2](${GL}/merge_requests/2) (assigned to Tomasz Kolek) from \`tomek\` to \`master\`:\n\n~~~ quote\ndescription of merge request\n~~~`,
  },
  {
    integration: 'gitlab', fixture: 'merge_request_hook__merged', headers: { 'X-Gitlab-Event': 'Merge Request Hook' }, topic: 'my-awesome-project / MR #2 NEW MR',
    body: `Tomasz Kolek merged [MR #2](${GL}/merge_requests/2).`,
  },
  {
    // With a topic of the caller's, GitLab's messages name the project and the title.
    integration: 'gitlab', fixture: 'merge_request_hook__merged', headers: { 'X-Gitlab-Event': 'Merge Request Hook' }, query: { topic: 'reviews' }, topic: 'reviews',
    body: `[[my-awesome-project](${GL})] Tomasz Kolek merged [MR #2 NEW MR](${GL}/merge_requests/2).`,
  },
  {
    integration: 'slack_incoming', fixture: 'text', topic: '(no topic)',
    body: 'Hello, **world**! This is *important*: [the status page](https://example.com/status).',
  },
  {
    integration: 'slack_incoming', fixture: 'attachments', topic: 'deploys',
    body: '[Deployment v1.2.3](https://ci.example.com/deploys/123)\nDeployed **v1.2.3** to production.',
  },
  {
    integration: 'json', fixture: 'object', topic: 'JSON',
    body: '```json\n{\n  "alert": "disk almost full",\n  "host": "db-1",\n  "usage": 0.93,\n  "tags": [\n    "prod",\n    "storage"\n  ],\n'
      + '  "owner": {\n    "team": "ops",\n    "on_call": "Zo\\u00eb"\n  }\n}\n```',
  },
];

for (const c of CASES) {
  test(`${c.integration} ${c.fixture}${c.query ? ` ${JSON.stringify(c.query)}` : ''}: topic and body as Zulip's`, async () => {
    const r = await postWebhook(t, c.integration, { key: hook.apiKey, query: { stream: 'dev', ...(c.query ?? {}) }, body: fixture(c.integration, c.fixture), headers: c.headers ?? {} });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { result: 'success', msg: '' });
    const m = await newestMessage(t);
    assert.equal(m.sender_id, hook.id);
    assert.equal(m.subject, c.topic);
    assert.equal(m.content, c.body);
  });
}

test('Slack\'s own form: the JSON in a `payload` field; without it, Zulip\'s missing-argument error', async () => {
  const body = new URLSearchParams({ payload: fixture('slack_incoming', 'text') }).toString();
  const r = await postWebhook(t, 'slack_incoming', { key: hook.apiKey, query: { stream: 'dev', topic: 'slack-form' }, body, contentType: 'application/x-www-form-urlencoded' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const m = await newestMessage(t);
  assert.equal(m.subject, 'slack-form');
  assert.equal(m.content, 'Hello, **world**! This is *important*: [the status page](https://example.com/status).');
  const none = await postWebhook(t, 'slack_incoming', { key: hook.apiKey, query: { stream: 'dev' }, body: 'text=hi', contentType: 'application/x-www-form-urlencoded' });
  assert.equal(none.status, 400);
  assert.deepEqual(none.body, { result: 'error', msg: "Missing 'payload' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'payload' });
});

test('unsupported events answer Zulip\'s error and post nothing; ignored ones post nothing and succeed', async () => {
  const before = await messageCount(t);
  const star = await postWebhook(t, 'github', { key: hook.apiKey, query: { stream: 'dev' }, body: fixture('github', 'star__created'), headers: { 'X-GitHub-Event': 'star' } });
  assert.equal(star.status, 400);
  assert.deepEqual(star.body, {
    result: 'error', msg: "The 'star:created' event isn't currently supported by the GitHub webhook", code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    webhook_name: 'GitHub', event_type: 'star:created',
  });
  const pipeline = await postWebhook(t, 'gitlab', { key: hook.apiKey, query: { stream: 'dev' }, body: { object_kind: 'pipeline' }, headers: { 'X-Gitlab-Event': 'Pipeline Hook' } });
  assert.equal(pipeline.status, 400);
  assert.equal(pipeline.body.msg, "The 'Pipeline Hook' event isn't currently supported by the GitLab webhook");
  const weird = JSON.parse(fixture('gitlab', 'issue_hook__closed'));
  weird.object_attributes.action = 'teleport';
  const odd = await postWebhook(t, 'gitlab', { key: hook.apiKey, query: { stream: 'dev' }, body: weird, headers: { 'X-Gitlab-Event': 'Issue Hook' } });
  assert.equal(odd.body.msg, "The 'Issue Hook teleport' event isn't currently supported by the GitLab webhook");
  const ignored = await postWebhook(t, 'github', { key: hook.apiKey, query: { stream: 'dev' }, body: { action: 'created' }, headers: { 'X-GitHub-Event': 'milestone' } });
  assert.equal(ignored.status, 200);
  assert.equal(await messageCount(t), before);
});

test('a missing event header: Zulip\'s error, and the owner is told how to fix it', async () => {
  const before = await messageCount(t);
  const r = await postWebhook(t, 'github', { key: hook.apiKey, query: { stream: 'dev' }, body: fixture('github', 'ping') });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { result: 'error', msg: "Missing the HTTP event header 'X-GitHub-Event'", code: 'MISSING_HTTP_EVENT_HEADER', header: 'X-GitHub-Event' });
  const notice = await newestMessage(t);
  assert.equal(notice.sender_email, 'notification-bot@zulip.com');
  assert.match(notice.content, new RegExp(`^Hi there!  Your bot ${hook.row.full_name} just sent an HTTP request to /api/v1/external/github that\nis missing the HTTP X-GitHub-Event header.`));
  assert.equal(await messageCount(t), before + 1);
  const gl = await postWebhook(t, 'gitlab', { key: hook.apiKey, query: { stream: 'dev' }, body: fixture('gitlab', 'push_hook') });
  assert.equal(gl.body.msg, "Missing the HTTP event header 'X-Gitlab-Event'");
});

test('a payload missing a nested key names its whole path', async () => {
  const p = JSON.parse(fixture('github', 'issues__opened'));
  delete p.issue.number;
  const r = await postWebhook(t, 'github', { key: hook.apiKey, query: { stream: 'dev' }, body: p, headers: { 'X-GitHub-Event': 'issues' } });
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, "payload['issue']['number'] is missing");
});
