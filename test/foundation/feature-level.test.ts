import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { LATEST_FEATURE_LEVEL, SPEC_FEATURE_LEVEL, parseFeatureLevel, zulipVersionOf } from '../../src/lib/version.js';
import { loadConfig } from '../../src/config.js';

/** PARLEY_FEATURE_LEVEL: 122 (the spec) or latest; both names of every version field follow it. */
const apps: TestApp[] = [];
after(async () => { for (const a of apps) await a.close(); });

const VERSION_KEYS = ['zulip_feature_level', 'service_feature_level', 'zulip_version', 'service_merge_base', 'zulip_merge_base'];

for (const level of [SPEC_FEATURE_LEVEL, LATEST_FEATURE_LEVEL]) {
  test(`at level ${level}, server_settings, register and the OpenAPI document report it`, async () => {
    const t = await testApp({ featureLevel: level });
    apps.push(t);
    const { version, mergeBase } = zulipVersionOf(level);
    const settings = await t.api('GET', '/api/v1/server_settings', { as: null });
    const reg = await t.api('POST', '/api/v1/register', { params: { event_types: ['message'], fetch_event_types: ['realm'] } });
    for (const body of [settings.body, reg.body]) {
      assert.deepEqual(Object.fromEntries(VERSION_KEYS.map((k) => [k, body[k]])), {
        zulip_feature_level: level, service_feature_level: level, zulip_version: version, service_merge_base: mergeBase, zulip_merge_base: mergeBase,
      });
    }
    const doc = await t.api('GET', '/api/v1/openapi.json', { as: null });
    assert.equal(doc.body.info.version, `feature level ${level}`);
  });
}

test('the version names follow Zulip: a release by its name, between releases the next one in development', () => {
  assert.deepEqual(zulipVersionOf(122), { version: '5.0', mergeBase: '5.0' });
  assert.deepEqual(zulipVersionOf(124), { version: '6.0-dev', mergeBase: '5.0' });
  assert.deepEqual(zulipVersionOf(277), { version: '9.0', mergeBase: '9.0' });
  assert.deepEqual(zulipVersionOf(300), { version: '10.0-dev', mergeBase: '9.0' });
  assert.deepEqual(zulipVersionOf(371), { version: '10.0', mergeBase: '10.0' });
});

test('the setting takes 122 or latest, and refuses anything else by name', () => {
  assert.equal(parseFeatureLevel(undefined), SPEC_FEATURE_LEVEL);
  assert.equal(parseFeatureLevel(''), SPEC_FEATURE_LEVEL);
  assert.equal(parseFeatureLevel('122'), SPEC_FEATURE_LEVEL);
  assert.equal(parseFeatureLevel('latest'), LATEST_FEATURE_LEVEL);
  assert.equal(parseFeatureLevel(' LATEST '), LATEST_FEATURE_LEVEL);
  for (const bad of [String(LATEST_FEATURE_LEVEL + 1), String(SPEC_FEATURE_LEVEL + 1), '9.0', 'newest', '-1']) assert.throws(() => parseFeatureLevel(bad), /PARLEY_FEATURE_LEVEL must be 122 or latest/);
  const saved = process.env.PARLEY_FEATURE_LEVEL;
  try {
    process.env.PARLEY_FEATURE_LEVEL = 'latest';
    assert.equal(loadConfig().featureLevel, LATEST_FEATURE_LEVEL);
    process.env.PARLEY_FEATURE_LEVEL = 'bogus';
    assert.throws(() => loadConfig(), /PARLEY_FEATURE_LEVEL/);
  } finally {
    if (saved === undefined) delete process.env.PARLEY_FEATURE_LEVEL;
    else process.env.PARLEY_FEATURE_LEVEL = saved;
  }
});
