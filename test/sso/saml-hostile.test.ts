import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { samlWorld, assertRefused, type SamlWorld } from './saml-helpers.js';
import { scaledMs } from '../helpers/machine.js';

/**
 * Hostile answers posted to the assertion consumer after a real sign-in began: an entity
 * expansion bomb, an external entity, garbage, a huge document. Each is a refusal page, quick,
 * never a 500 and never a session; the server keeps answering.
 */

let w: SamlWorld;
before(async () => {
  w = await samlWorld();
});
after(() => w.t.close());

const b64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

const LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lolololololololololol">
${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('\n')}
]>
<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_x" Version="2.0" IssueInstant="2026-01-01T00:00:00Z">&lol9;</samlp:Response>`;

const XXE = `<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_x" Version="2.0" IssueInstant="2026-01-01T00:00:00Z">&xxe;</samlp:Response>`;

const cases: Array<[string, string]> = [
  ['an entity expansion bomb', b64(LAUGHS)],
  ['an external entity', b64(XXE)],
  ['not base64 of XML', '%%%not base64%%%'],
  ['base64 of garbage', b64('\u0000\u0001 not xml <<<')],
  ['deeply nested elements', b64(`${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}`)],
  ['a document over a megabyte', b64(`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${'x'.repeat(1_100_000)}</samlp:Response>`)],
];

for (const [name, body] of cases) {
  test(`${name}: refused with a page, no session, quickly`, async () => {
    const { relayState } = await w.begin();
    // Quick in CPU time (the server runs in this process): wall time is the machine's load.
    const started = process.cpuUsage();
    const res = await w.post(body, relayState);
    const { user, system } = process.cpuUsage(started);
    const cpuMs = (user + system) / 1000;
    assertRefused(res, 400, /Sign-in failed/);
    assert.doesNotMatch(res.body, /root:x:0:0/, 'no file contents');
    assert.ok(cpuMs < scaledMs(2_000), `answered with ${cpuMs.toFixed(0)} ms of CPU`);
    // The server still works.
    const again = await w.t.api('GET', '/api/v1/server_settings', { as: null });
    assert.equal(again.status, 200);
  });
}
