import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { integrationNamed, eventWanted, Wild } from '../../src/webhooks/index.js';
import { ApiError } from '../../src/errors.js';
import { pyRepr } from '../../src/webhooks/wild.js';
import { replaceFormatting, replaceLinks } from '../../src/webhooks/slack-incoming.js';

/**
 * The integrations are pure maps from payload to message. Whatever JSON arrives, with
 * whatever event header, each answers a message, nothing, or an ApiError: never a crash.
 */
const NAMES = ['helloworld', 'github', 'gitlab', 'slack_incoming', 'json'];
const HEADERS = ['push', 'issues', 'issue_comment', 'pull_request', 'ping', 'star', 'Push Hook', 'Issue Hook', 'Merge Request Hook', 'Note Hook'];
// Payload shapes near the real ones, so that generation gets past the first missing key.
const near = fc.record({
  action: fc.constantFrom('opened', 'closed', 'created', 'assigned', 'synchronize', 'open', 'merge', 'update'),
  ref: fc.constantFrom('refs/heads/main', 'refs/tags/v1', 'x'),
  sender: fc.record({ login: fc.string() }),
  repository: fc.record({ name: fc.string(), html_url: fc.string() }),
  issue: fc.record({ number: fc.integer(), title: fc.string(), html_url: fc.string(), body: fc.option(fc.string()) }),
  object_attributes: fc.record({ iid: fc.integer(), title: fc.string(), url: fc.string(), action: fc.string() }, { requiredKeys: [] }),
  user: fc.record({ name: fc.string() }),
  commits: fc.array(fc.record({ id: fc.string(), message: fc.string(), url: fc.string(), author: fc.record({ name: fc.string() }) })),
  text: fc.string(), attachments: fc.array(fc.record({ text: fc.string() })),
}, { requiredKeys: [] });

test('any payload, any event header: a message, nothing, or an ApiError', () => {
  fc.assert(fc.property(fc.constantFrom(...NAMES), fc.oneof(fc.jsonValue(), near), fc.constantFrom(...HEADERS), fc.boolean(), (name, payload, header, userTopic) => {
    const integration = integrationNamed(name)!;
    try {
      const m = integration.handle({
        payload: new Wild(payload), headers: { 'x-github-event': header, 'x-gitlab-event': header }, param: () => undefined, userTopic,
      });
      if (m) {
        assert.equal(typeof m.topic, 'string');
        assert.equal(typeof m.body, 'string');
      }
    } catch (err) {
      assert.ok(err instanceof ApiError, String(err));
    }
  }), { numRuns: 2000 });
});

test('WildValue paths use Python\'s repr of keys', () => {
  assert.equal(pyRepr('a'), "'a'");
  assert.equal(pyRepr("it's"), '"it\'s"');
  assert.throws(() => new Wild({ a: { } }).at('a').at("b'c"), (e: ApiError) => e.message === `payload['a']["b'c"] is missing`);
  assert.throws(() => new Wild([]).at(0), (e: ApiError) => e.message === 'payload[0] is missing');
  assert.throws(() => new Wild('x').at('k'), (e: ApiError) => e.message === 'payload is not a dict');
});

test('only_events / exclude_events patterns are fnmatch\'s', () => {
  assert.equal(eventWanted('push_commits', ['push_*'], undefined), true);
  assert.equal(eventWanted('issues', ['push_*'], undefined), false);
  assert.equal(eventWanted('issues', undefined, ['iss?es']), false);
  assert.equal(eventWanted('issues', undefined, ['[!i]ssues']), true);
  assert.equal(eventWanted('a.b', ['a?b'], undefined), true);
  assert.equal(eventWanted('axb', ['a.b'], undefined), false);
  assert.equal(eventWanted(undefined, ['nothing'], undefined), true);
});

test('Slack mrkdwn: links and emphasis as Zulip rewrites them, and words with underscores kept', () => {
  assert.equal(replaceLinks('see <https://x.test/a|the page> and <https://y.test>'), 'see [the page](https://x.test/a) and <https://y.test>');
  assert.equal(replaceFormatting('*bold* and _it_ but snake_case_name and 2*3*4'), '**bold** and *it* but snake_case_name and 2*3*4');
});
