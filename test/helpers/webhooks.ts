import fs from 'node:fs';
import path from 'node:path';
import { transact } from '../../src/actions/transaction.js';
import { doCreateBot } from '../../src/actions/bot-create.js';
import { BotType } from '../../src/lib/roles.js';
import { asTestUser, HOST, type ApiResult, type TestApp, type TestUser } from './app.js';

let n = 0;

/** An incoming-webhook bot (type 2) owned by `owner`, made as POST /bots makes it. */
export async function createWebhookBot(t: TestApp, owner: TestUser = t.owner): Promise<TestUser> {
  n += 1;
  return asTestUser(await transact(t.app.ctx, (tx) =>
    doCreateBot(tx, t.app.ctx.config, t.realm, owner.row, { fullName: `Hook ${n}`, shortName: `hook${n}`, botType: BotType.INCOMING_WEBHOOK })));
}

export interface HookCall {
  /** The bot's key, sent as the api_key query parameter (null: none). */
  key: string | null;
  query?: Record<string, string>;
  /** Sent as is when a string, else JSON-encoded. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  host?: string;
}

/** POST /api/v1/external/<integration> as a third party would: no basic auth unless headers say so. */
export async function postWebhook(t: TestApp, integration: string, call: HookCall): Promise<ApiResult> {
  const qs = new URLSearchParams({ ...(call.key !== null ? { api_key: call.key } : {}), ...(call.query ?? {}) }).toString();
  const payload = typeof call.body === 'string' ? call.body : JSON.stringify(call.body ?? {});
  const res = await t.app.http.inject({
    method: 'POST', url: `/api/v1/external/${integration}${qs ? `?${qs}` : ''}`, payload,
    headers: { host: call.host ?? HOST, 'content-type': call.contentType ?? 'application/json', ...(call.headers ?? {}) },
  });
  let body: unknown;
  try {
    body = res.json();
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, body };
}

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'webhooks');

/** A recorded payload's text, from test/fixtures/webhooks/<integration>/<name>.json. */
export const fixture = (integration: string, name: string): string => fs.readFileSync(path.join(FIXTURES, integration, `${name}.json`), 'utf8');

/** The newest message `as` can see, raw markdown. */
export async function newestMessage(t: TestApp, as: TestUser = t.owner): Promise<any> {
  const res = await t.api('GET', '/api/v1/messages', { as, params: { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false } });
  return res.body.messages.at(-1);
}

/** How many messages `as` can see (a request that must post nothing leaves it unchanged). */
export async function messageCount(t: TestApp, as: TestUser = t.owner): Promise<number> {
  const res = await t.api('GET', '/api/v1/messages', { as, params: { anchor: 'newest', num_before: 5000, num_after: 0 } });
  return res.body.messages.length;
}
