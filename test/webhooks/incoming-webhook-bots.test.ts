import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';

// register's realm_incoming_webhook_bots (feature level 207's form): the integrations this
// server takes, with Zulip's names, display names and event types; absent at level 122.
test('register lists the integrations from level 207, with display_name and all_event_types', async () => {
  const t = await testApp({ featureLevel: 277 });
  try {
    const reg = assertOk(await t.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm_incoming_webhook_bots'] } }));
    const bots = reg.realm_incoming_webhook_bots as Array<{ name: string; display_name: string; all_event_types: string[] | null; config: object }>;
    assert.deepEqual(bots.map((b) => [b.name, b.display_name]), [
      ['helloworld', 'Hello World'], ['github', 'GitHub'], ['gitlab', 'GitLab'], ['slack_incoming', 'Slack-compatible webhook'], ['json', 'JSON formatter'],
    ]);
    for (const b of bots) assert.deepEqual(b.config, {});
    const byName = new Map(bots.map((b) => [b.name, b]));
    assert.equal(byName.get('helloworld')!.all_event_types, null);
    assert.ok(byName.get('github')!.all_event_types!.includes('push_commits'));
    assert.ok(byName.get('github')!.all_event_types!.includes('opened_or_update_pull_request'));
    assert.ok(byName.get('gitlab')!.all_event_types!.includes('Merge Request Hook merge'));
    assert.ok(byName.get('gitlab')!.all_event_types!.includes('Confidential Issue Hook open'));
    // Register without fetch_event_types has it too.
    assert.ok('realm_incoming_webhook_bots' in assertOk(await t.api('POST', '/api/v1/register')));
  } finally {
    await t.close();
  }
});

test('level 122: no realm_incoming_webhook_bots', async () => {
  const t = await testApp({ featureLevel: 122 });
  try {
    const reg = assertOk(await t.api('POST', '/api/v1/register', { params: { fetch_event_types: ['realm_incoming_webhook_bots'] } }));
    assert.equal('realm_incoming_webhook_bots' in reg, false);
  } finally {
    await t.close();
  }
});
