import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { assertOk } from '../helpers/assert.js';
import { createStreams } from '../helpers/streams.js';

// Feature level 166: POST /messages no longer has a `realm_str` parameter; one sent is
// ignored, whatever it says (Zulip 5 refused one naming another organization).
let t: TestApp;
let alice: TestUser;

before(async () => {
  t = await testApp({ featureLevel: 277 });
  ({ alice } = await t.createUsers(people('alice')));
  await createStreams(t, { lounge: [alice] });
});
after(() => t.close());

test('166: realm_str on POST /messages is ignored, even naming another organization', async () => {
  for (const realmStr of ['elsewhere', t.realm.string_id, '']) {
    const r = assertOk(await t.api('POST', '/api/v1/messages', { as: alice, params: { type: 'stream', to: 'lounge', topic: 'realm', content: `hi [${realmStr}]`, realm_str: realmStr } }));
    const got = assertOk(await t.api('GET', `/api/v1/messages/${r.id}`, { as: alice, params: { apply_markdown: false } }));
    assert.equal(got.raw_content, `hi [${realmStr}]`);
    assert.equal(got.message.sender_realm_str, t.realm.string_id);
  }
});
