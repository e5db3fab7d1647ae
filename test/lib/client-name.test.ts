import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientName, isHumanClient } from '../../src/lib/client-name.js';

test('client names follow Zulip: the parameter, else the first User-Agent product token', () => {
  const cases: Array<[string | undefined, string | undefined, string]> = [
    [undefined, 'ZulipPython/0.8.2 (Linux; debian 12; python 3.11)', 'ZulipPython'],
    [undefined, 'ZulipTerminal/0.7.0 Linux', 'ZulipTerminal'],
    [undefined, 'ZulipMobile/27.200 (Android 13)', 'ZulipMobile'],
    [undefined, 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120', 'website'],
    [undefined, 'Mozilla/5.0 ZulipElectron/5.9.0', 'Mozilla'],
    [undefined, 'curl/8.1.2', 'curl'],
    [undefined, undefined, 'Unspecified'],
    [undefined, '', 'Unspecified'],
    ['website', 'curl/8.1.2', 'website'],
    ['  ', 'node', 'node'],
  ];
  for (const [param, ua, expected] of cases) assert.equal(clientName(param, ua), expected, `${param} / ${ua}`);
});

test('human-facing apps are non-API clients; libraries and scripts are API clients', () => {
  for (const n of ['website', 'ZulipTerminal', 'ZulipMobile', 'ZulipElectron', 'ZulipDesktop', 'ZulipAndroid', 'ZulipiOS', 'Zulip desktop app']) {
    assert.equal(isHumanClient(n), true, n);
  }
  for (const n of ['ZulipPython', 'node', 'curl', 'Unspecified', 'ZulipGitHubWebhook', 'zulip-js']) assert.equal(isHumanClient(n), false, n);
});
