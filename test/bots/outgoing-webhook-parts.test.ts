import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readAnswer, GENERIC_INTERFACE, SLACK_INTERFACE } from '../../src/outgoing-webhooks/payload.js';
import { ownerNotice, pyRepr, nearMessageUrl } from '../../src/outgoing-webhooks/notices.js';
import { JobPool } from '../../src/outgoing-webhooks/pool.js';
import { until } from '../helpers/until.js';

// The pure cores of outgoing webhooks (reading answers, Zulip's notice texts) and the
// delivery pool's limits, without a server.

test('readAnswer: Zulip\'s process_success_response for both interfaces', () => {
  const g = (body: string) => readAnswer(GENERIC_INTERFACE, body);
  assert.deepEqual(g('{"content": "hi"}'), { kind: 'reply', content: 'hi' });
  assert.deepEqual(g('{"response_string": "old", "content": "new"}'), { kind: 'reply', content: 'old' }, 'the deprecated key first');
  assert.deepEqual(g('{"content": 42}'), { kind: 'reply', content: '42' });
  assert.deepEqual(g('{"content": "hi", "widget_content": "{}"}'), { kind: 'reply', content: 'hi' });
  assert.deepEqual(g('{"response_not_required": true, "content": "hi"}'), { kind: 'none' });
  assert.deepEqual(g('{"response_not_required": false, "content": "hi"}'), { kind: 'reply', content: 'hi' });
  for (const quiet of ['{}', '""', '{"content": ""}', '{"content": " \\n "}', '{"text": "slack only"}']) assert.deepEqual(g(quiet), { kind: 'none' }, quiet);
  assert.deepEqual(g('<html>'), { kind: 'invalid', error: 'Invalid JSON in response' });
  for (const wrong of ['[]', '3', '"text"', 'null']) assert.deepEqual(g(wrong), { kind: 'invalid', error: 'Invalid response format' }, wrong);
  const s = (body: string) => readAnswer(SLACK_INTERFACE, body);
  assert.deepEqual(s('{"text": "hey"}'), { kind: 'reply', content: 'hey' });
  assert.deepEqual(s('{"content": "generic only"}'), { kind: 'none' });
  assert.deepEqual(s('{"text": null}'), { kind: 'none' });
});

test('pyRepr quotes as Python\'s repr of bytes and of str', () => {
  assert.equal(pyRepr('{"a":1}', true), `b'{"a":1}'`);
  assert.equal(pyRepr("it's", false), `"it's"`);
  assert.equal(pyRepr(`it's "x"`, false), `'it\\'s "x"'`);
  assert.equal(pyRepr('a\nb\\', true), `b'a\\nb\\\\'`);
  assert.equal(pyRepr('é', true), `b'\\xc3\\xa9'`);
  assert.equal(pyRepr('é', false), `'é'`);
});

test('ownerNotice: Zulip\'s notify_bot_owner texts', () => {
  const base = { messageUrl: 'http://x/#narrow/stream/1-a/topic/t/near/9', botFullName: 'Echo' };
  const head = '[A message](http://x/#narrow/stream/1-a/topic/t/near/9) to your bot @_**Echo** triggered an outgoing webhook.';
  assert.equal(ownerNotice({ ...base, status: 407 }), `${head}\nThe URL configured for the webhook is for a private or disallowed network.`);
  assert.equal(ownerNotice({ ...base, status: 404, response: "b'no'" }), `${head}\nThe webhook got a response with status code *404*.\nThe response contains the following payload:\n\`\`\`\nb'no'\n\`\`\``);
  assert.equal(ownerNotice({ ...base, exception: { type: 'ERR_INVALID_URL', text: 'Invalid URL' } }),
    `${head}\nWhen trying to send a request to the webhook service, an exception of type ERR_INVALID_URL occurred:\n\`\`\`\nInvalid URL\n\`\`\``);
  assert.equal(nearMessageUrl('http://x', { id: 9, type: 'stream', stream_id: 1, display_recipient: 'my stream', subject: 'a.b c' }),
    'http://x/#narrow/stream/1-my-stream/topic/a.2Eb.20c/near/9');
  assert.equal(nearMessageUrl('http://x', { id: 9, type: 'private', display_recipient: [{ id: 3 }, { id: 7 }] }), 'http://x/#narrow/pm-with/3,7-pm/near/9');
});

test('the pool runs at most `concurrency` jobs, holds at most `backlog`, retries after a pause, and stops without waiting past its grace', async () => {
  const releases: Array<() => void> = [];
  let running = 0;
  let most = 0;
  const ran: number[] = [];
  const pool = new JobPool<{ n: number; again?: boolean }>(async (job, signal) => {
    running += 1;
    most = Math.max(most, running);
    ran.push(job.n);
    await new Promise<void>((resolve) => {
      releases.push(resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    running -= 1;
    return job.again ? [{ job: { n: job.n + 100 }, delayMs: 1 }] : [];
  }, { concurrency: 2, backlog: 3 }, (err) => assert.fail(String(err)));
  assert.equal(pool.offer({ n: 1, again: true }), true);
  assert.equal(pool.offer({ n: 2 }), true);
  assert.equal(pool.offer({ n: 3 }), true);
  assert.equal(pool.offer({ n: 4 }), false, 'the backlog counts running jobs too');
  assert.deepEqual(ran, [1, 2]);
  releases.shift()!();
  // Job 1 finished and asked to run again: the retry waits its pause and keeps a place.
  await until(() => ran.length === 3);
  assert.deepEqual(ran, [1, 2, 3]);
  assert.equal(pool.offer({ n: 6 }), false, 'a parked retry holds its place in the backlog');
  releases.shift()!();
  await until(() => ran.length === 4);
  assert.deepEqual(ran, [1, 2, 3, 101]);
  assert.equal(most, 2);
  assert.equal(pool.size, 2);
  const dropped = await pool.stop(10);
  assert.equal(dropped, 2, 'the two hanging jobs were cut off after the grace');
  assert.equal(pool.offer({ n: 5 }), false, 'a stopped pool takes nothing');
});
