import assert from 'node:assert/strict';
import type { ApiResult, TestApp, TestUser } from '../helpers/app.js';
import type { EventEnvelope } from '../helpers/envelope.js';

export function assertError(r: ApiResult, msg: string, code = 'BAD_REQUEST', status = 400, extra: Record<string, unknown> = {}): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: 'error', msg, code, ...extra });
}

export function assertOk(r: ApiResult): any {
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result, 'success');
  assert.equal(r.body.msg, '');
  return r.body;
}

/** Subscribes through the API and returns the stream id. */
export async function subscribe(t: TestApp, as: TestUser, name: string, params: Record<string, unknown> = {}): Promise<number> {
  assertOk(await t.api('POST', '/api/v1/users/me/subscriptions', { as, params: { subscriptions: [{ name }], ...params } }));
  const r = await t.api('GET', '/api/v1/get_stream_id', { as: t.owner, query: { stream: name } });
  if (r.status === 200) return r.body.stream_id;
  const row = await t.app.ctx.store.db.selectFrom('stream').select('id').where('name', '=', name).where('deactivated', '=', 0).executeTakeFirstOrThrow();
  return row.id;
}

/** Records every envelope published on the bus while it is attached. */
export class EventLog {
  events: EventEnvelope[] = [];
  constructor(t: TestApp) {
    t.app.ctx.bus.subscribe((e) => this.events.push(e));
  }
  clear(): void {
    this.events.length = 0;
  }
  find(type: string, op?: string, pred: (e: EventEnvelope) => boolean = () => true): EventEnvelope[] {
    return this.events.filter((e) => e.event.type === type && (op === undefined || e.event.op === op) && pred(e));
  }
  one(type: string, op?: string, pred?: (e: EventEnvelope) => boolean): EventEnvelope {
    const found = this.find(type, op, pred);
    assert.equal(found.length, 1, `expected one ${type}/${op} event, got ${JSON.stringify(found.map((e) => e.event))}`);
    return found[0]!;
  }
  /** Users who received any event mentioning the stream id. */
  recipientsMentioning(streamId: number): Set<number> {
    const out = new Set<number>();
    for (const e of this.events) {
      if (JSON.stringify(e.event).match(new RegExp(`"(stream_id|stream_ids)":\\[?([0-9,]*,)?${streamId}[,\\]}]`))) e.userIds.forEach((u) => out.add(u));
    }
    return out;
  }
}

export const sorted = (xs: Iterable<number>) => [...xs].sort((a, b) => a - b);

/** Merges organization settings straight into the realm row (no settings endpoint yet). */
export async function setRealmSettings(t: TestApp, patch: Record<string, unknown>): Promise<void> {
  const { realms } = await import('../../src/store/repos/realms.js');
  const row = (await realms.findById(t.app.ctx.store.db, t.realm.id))!;
  const settings = { ...JSON.parse(row.settings), ...patch };
  await realms.update(t.app.ctx.store.db, t.realm.id, { settings: JSON.stringify(settings) });
}

export function assertUnauthenticated(r: ApiResult): void {
  assertError(r, 'Missing authorization header for basic auth', 'UNAUTHORIZED', 401);
}

/** Inserts a stream message row directly (for topic listings), with user_message rows for `receivers`. */
export async function insertStreamMessage(t: TestApp, streamId: number, senderId: number, topic: string, receivers: number[]): Promise<number> {
  const db = t.app.ctx.store.db;
  const stream = await db.selectFrom('stream').selectAll().where('id', '=', streamId).executeTakeFirstOrThrow();
  const row = await db.insertInto('message').values({
    realm_id: stream.realm_id, sender_id: senderId, recipient_id: stream.recipient_id!, stream_id: streamId, topic,
    topic_lower: topic.toLowerCase(), content: 'hello', rendered_content: '<p>hello</p>', rendered_content_version: 1,
    date_sent: Math.floor(Date.now() / 1000), client: 'test', last_edit_time: null, edit_history: null,
    is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0,
  }).returning('id').executeTakeFirstOrThrow();
  for (const u of receivers) await db.insertInto('user_message').values({ user_id: u, message_id: row.id, flags: 0 }).execute();
  return row.id;
}
