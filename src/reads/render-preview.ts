import type { Q, RealmRow, UserRow } from '../store/rows.js';
import { renderContextFor } from './render-context.js';
import { renderMessage } from '../markdown/bounded.js';
import { truncateContent } from '../lib/message-content.js';

/**
 * POST /messages/render: the HTML `author` would get by sending `content`, cut to the
 * message limit as a send cuts it (Zulip's render has no limit of its own; unbounded
 * content here once held the event loop for seconds) and rendered under the same bound.
 */
export async function renderPreview(q: Q, realm: RealmRow, author: UserRow, content: string, featureLevel?: number): Promise<string> {
  const body = truncateContent(content);
  return (await renderMessage(body, await renderContextFor(q, realm, author, body, featureLevel))).html;
}
