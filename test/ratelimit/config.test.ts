/** The budgets' configuration: Zulip's defaults, PARLEY_RATE_LIMITS overrides, turning them off. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RATE_LIMIT_RULES, parseRateLimitRules } from '../../src/ratelimit/rules.js';
import { loadConfig, parseTrustProxy } from '../../src/config.js';
import { overridesFrom } from '../../src/cli/options.js';
import { InMemoryRateLimiter } from '../../src/ratelimit/memory.js';

test('the defaults are Zulip\'s (200 a minute per user, 100 per anonymous address, 5 failed sign-ins per half hour)', () => {
  assert.deepEqual(DEFAULT_RATE_LIMIT_RULES.api_by_user, [{ windowSecs: 60, max: 200 }]);
  assert.deepEqual(DEFAULT_RATE_LIMIT_RULES.api_by_ip, [{ windowSecs: 60, max: 100 }]);
  assert.deepEqual(DEFAULT_RATE_LIMIT_RULES.authenticate_by_username, [{ windowSecs: 1800, max: 5 }]);
  assert.deepEqual(DEFAULT_RATE_LIMIT_RULES.email_change_by_user, [{ windowSecs: 3600, max: 2 }, { windowSecs: 86400, max: 5 }]);
});

test('overrides replace a domain\'s rules; an empty list turns that domain off; mistakes are refused', () => {
  const r = parseRateLimitRules(' api_by_user=60:500 ; authenticate_by_ip=86400:300,60:10; api_by_ip=');
  assert.deepEqual(r.api_by_user, [{ windowSecs: 60, max: 500 }]);
  assert.deepEqual(r.authenticate_by_ip, [{ windowSecs: 60, max: 10 }, { windowSecs: 86400, max: 300 }]);
  assert.deepEqual(r.api_by_ip, []);
  assert.deepEqual(r.authenticate_by_username, DEFAULT_RATE_LIMIT_RULES.authenticate_by_username);
  assert.throws(() => parseRateLimitRules('api_by_nobody=60:1'), /unknown rate limit domain 'api_by_nobody'/);
  assert.throws(() => parseRateLimitRules('api_by_user=60'), /must be <seconds>:<requests>/);
  assert.throws(() => parseRateLimitRules('api_by_user=0:5'), /both positive/);
});

test('environment and CLI: PARLEY_RATE_LIMITING, PARLEY_RATE_LIMITS, --no-rate-limiting, --rate-limits, trust proxy', () => {
  const saved = { ...process.env };
  try {
    delete process.env.PARLEY_RATE_LIMITING;
    delete process.env.PARLEY_RATE_LIMITS;
    assert.equal(loadConfig().rateLimiting, true, 'on by default in production');
    process.env.PARLEY_RATE_LIMITING = 'false';
    assert.equal(loadConfig().rateLimiting, false);
    process.env.PARLEY_RATE_LIMITING = 'maybe';
    assert.throws(() => loadConfig(), /PARLEY_RATE_LIMITING must be true or false/);
    delete process.env.PARLEY_RATE_LIMITING;
    process.env.PARLEY_RATE_LIMITS = 'api_by_user=10:7';
    assert.deepEqual(loadConfig().rateLimits.api_by_user, [{ windowSecs: 10, max: 7 }]);
    assert.deepEqual(overridesFrom({ rateLimiting: false }).rateLimiting, false);
    assert.equal(overridesFrom({ rateLimiting: true }).rateLimiting, undefined);
    const o = overridesFrom({ rateLimits: 'api_by_ip=30:3' });
    assert.deepEqual(o.rateLimits!.api_by_ip, [{ windowSecs: 30, max: 3 }]);
    assert.deepEqual(o.rateLimits!.api_by_user, [{ windowSecs: 10, max: 7 }], 'the environment\'s overrides stay under the flag\'s');
  } finally {
    process.env = saved;
  }
  assert.equal(parseTrustProxy(undefined), false);
  assert.equal(parseTrustProxy('true'), true);
  assert.deepEqual(parseTrustProxy('10.0.0.1, 172.16.0.0/12'), ['10.0.0.1', '172.16.0.0/12']);
  assert.throws(() => parseTrustProxy('2'), /not a hop count/);
});

test('the in-memory limiter: a window\'s budget, then refusal until it ends; peek counts nothing', () => {
  const l = new InMemoryRateLimiter(parseRateLimitRules('api_by_user=60:2;email_change_by_user=1:5,60:3'));
  assert.equal(l.peek('api_by_user', 'a')!.remaining, 2);
  assert.deepEqual({ ...l.hit('api_by_user', 'a')!, secsToFreedom: 0 }, { limited: false, limit: 2, remaining: 1, secsToFreedom: 0 });
  assert.equal(l.hit('api_by_user', 'a')!.limited, false);
  assert.equal(l.peek('api_by_user', 'a')!.limited, true, 'the next use would be over');
  const over = l.hit('api_by_user', 'a')!;
  assert.equal(over.limited, true);
  assert.ok(over.secsToFreedom > 59 && over.secsToFreedom <= 60);
  assert.equal(l.hit('api_by_user', 'b')!.limited, false, 'keys are apart');
  // Several rules: the longest window is reported, any spent rule refuses.
  for (let i = 0; i < 3; i++) assert.equal(l.hit('email_change_by_user', 'u')!.limited, false);
  const r = l.hit('email_change_by_user', 'u')!;
  assert.equal(r.limited, true);
  assert.equal(r.limit, 3);
  assert.equal(l.hit('authenticate_by_ip', 'x')!.limit, 50, 'a domain not overridden keeps its default');
  assert.equal(new InMemoryRateLimiter(parseRateLimitRules('api_by_ip=')).hit('api_by_ip', 'x'), undefined, 'a domain without rules is not limited');
});

test('a domain\'s keys never push another domain\'s out of memory', () => {
  const l = new InMemoryRateLimiter(parseRateLimitRules('authenticate_by_ip=1800:1'), 4);
  assert.equal(l.hit('authenticate_by_ip', '203.0.113.1')!.limited, false);
  for (let i = 0; i < 50; i++) l.hit('api_by_user', String(i));
  assert.equal(l.hit('authenticate_by_ip', '203.0.113.1')!.limited, true, 'the address\'s failure is still remembered');
});
