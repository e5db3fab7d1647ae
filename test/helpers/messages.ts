import type { ApiResult, TestApp, TestUser } from './app.js';
import { assertOk } from './assert.js';

/** POST /messages; asserts that it succeeded and answers the new message's id. */
export async function sendMessage(t: TestApp, as: TestUser, params: Record<string, unknown>): Promise<number> {
  return assertOk(await t.api('POST', '/api/v1/messages', { as, params })).id as number;
}

/** GET /messages: the newest hundred unless `query` says otherwise (narrow, anchor, ...). */
export function getMessages(t: TestApp, as: TestUser, query: Record<string, unknown> = {}): Promise<ApiResult> {
  return t.api('GET', '/api/v1/messages', { as, params: { anchor: 'newest', num_before: 100, num_after: 0, ...query } });
}

/** The ids of a GET /messages answer's messages, in its order. */
export const messageIds = (body: { messages: Array<{ id: number }> }) => body.messages.map((m) => m.id);
