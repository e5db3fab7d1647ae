/**
 * GET /json/events over real HTTP is answered by src/http/longpoll.ts's fast path (the web
 * app's session cookie), and must answer exactly as the Fastify route does (which inject()
 * reaches, since inject() bypasses the HTTP server).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { HOST, testApp, type TestApp } from '../helpers/app.js';
import { signIn, webCall, type WebSession } from '../helpers/web.js';
import { transact } from '../../src/actions/transaction.js';
import { doDeactivateUser } from '../../src/actions/user-deactivate.js';

let t: TestApp;
let base: string;
before(async () => {
  t = await testApp();
  base = await t.listen();
});
after(() => t.close());

/** The poll over HTTP, as the browser sends it (cookie, and the CSRF header unless told not to). */
async function poll(session: WebSession | null, query: Record<string, string>, opts: { csrf?: boolean; signal?: AbortSignal; path?: string } = {}) {
  const headers: Record<string, string> = { host: HOST };
  if (session) headers.cookie = session.cookie;
  if (session && opts.csrf !== false) headers['x-csrftoken'] = session.csrf;
  const res = await fetch(`${base}${opts.path ?? '/json/events'}?${new URLSearchParams(query)}`, { headers, signal: opts.signal ?? null });
  return { status: res.status, body: await res.json() as any };
}

/** The same poll through Fastify's route. */
async function routed(session: WebSession | null, query: Record<string, string>) {
  const r = await webCall(t, 'GET', '/json/events', { session, params: query });
  return { status: r.status, body: r.body };
}

async function registerQueue(session: WebSession): Promise<string> {
  const r = await webCall(t, 'POST', '/json/register', { session, params: { event_types: ['message'] } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.queue_id as string;
}

test('a signed-in poll is answered at once when events wait, and parks until one comes otherwise', async () => {
  const u = await t.createUser({ password: 'fast-path-pw-1' });
  const s = await signIn(t, u.email, 'fast-path-pw-1');
  const queue_id = await registerQueue(s);
  const empty = await poll(s, { queue_id, last_event_id: '-1', dont_block: 'true' });
  assert.deepEqual(empty, { status: 200, body: { result: 'success', msg: '', events: [], queue_id } });
  assert.deepEqual(await routed(s, { queue_id, last_event_id: '-1', dont_block: 'true' }), empty);

  // A parked poll (no CSRF header: a GET needs none, as on every /json route) answered by a message.
  const parked = poll(s, { queue_id, last_event_id: '-1' }, { csrf: false });
  const sent = await t.api('POST', '/api/v1/messages', { as: u, params: { type: 'private', to: JSON.stringify([u.id]), content: 'to myself' } });
  assert.equal(sent.status, 200);
  const got = await parked;
  assert.equal(got.status, 200);
  assert.deepEqual(got.body.events.map((e: any) => [e.type, e.message.id]), [['message', sent.body.id]]);
  // A trailing slash is the same route, as Fastify's router treats it.
  const again = await poll(s, { queue_id, last_event_id: '-1', dont_block: 'true' }, { path: '/json/events/' });
  assert.equal(again.body.events.length, 1);
});

test('refusals are the route\'s: no session, a foreign or expired cookie, a bad queue, another user\'s queue', async () => {
  const u = await t.createUser({ password: 'fast-path-pw-2' });
  const other = await t.createUser({ password: 'fast-path-pw-3' });
  const s = await signIn(t, u.email, 'fast-path-pw-2');
  const so = await signIn(t, other.email, 'fast-path-pw-3');
  const queue_id = await registerQueue(s);
  const cases: Array<[WebSession | null, Record<string, string>, number]> = [
    [null, { queue_id, last_event_id: '-1', dont_block: 'true' }, 401],
    [{ ...s, cookie: 'parley_session=not-a-session' }, { queue_id, dont_block: 'true' }, 401],
    [s, { queue_id: 'no-such-queue', dont_block: 'true' }, 400],
    [so, { queue_id, dont_block: 'true' }, 400],
    [s, { dont_block: 'true' }, 400],
    [s, { queue_id, last_event_id: 'x', dont_block: 'true' }, 400],
  ];
  for (const [session, query, status] of cases) {
    const fast = await poll(session, query);
    assert.equal(fast.status, status, JSON.stringify([query, fast.body]));
    assert.deepEqual(fast, await routed(session, query), JSON.stringify(query));
  }
  assert.equal((await poll(null, { queue_id })).body.msg, 'Not logged in: API authentication or user session required');
  assert.equal((await poll(s, { queue_id: 'no-such-queue' })).body.code, 'BAD_EVENT_QUEUE_ID');
});

test('a deactivated user\'s poll ends the session, as the route does', async () => {
  const u = await t.createUser({ password: 'fast-path-pw-4' });
  const s = await signIn(t, u.email, 'fast-path-pw-4');
  const queue_id = await registerQueue(s);
  await transact(t.app.ctx, (tx) => doDeactivateUser(tx, u.row));
  const first = await poll(s, { queue_id, dont_block: 'true' });
  assert.equal(first.status, 401);
  assert.equal(first.body.code, 'USER_DEACTIVATED');
  // The session is gone: now simply not logged in.
  const second = await poll(s, { queue_id, dont_block: 'true' });
  assert.deepEqual([second.status, second.body.msg], [401, 'Not logged in: API authentication or user session required']);
});

test('the API key path is untouched: /api/v1/events with basic auth still answers', async () => {
  const u = await t.createUser();
  const reg = await t.api('POST', '/api/v1/register', { as: u, params: { event_types: JSON.stringify(['message']) } });
  const auth = `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString('base64')}`;
  const res = await fetch(`${base}/api/v1/events?queue_id=${reg.body.queue_id}&dont_block=true`, { headers: { host: HOST, authorization: auth } });
  assert.deepEqual(await res.json(), { result: 'success', msg: '', events: [], queue_id: reg.body.queue_id });
  // A session cookie is no credential for /api/v1.
  const s = await signIn(t, t.owner.email, (await import('../helpers/app.js')).OWNER_PASSWORD);
  const cookieOnly = await fetch(`${base}/api/v1/events?queue_id=${reg.body.queue_id}&dont_block=true`, { headers: { host: HOST, cookie: s.cookie } });
  assert.equal(cookieOnly.status, 401);
});
