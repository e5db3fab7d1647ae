import type { Integration } from './types.js';

/**
 * Zulip's JSON formatter (zerver/webhooks/json): any JSON body, pretty-printed in a json
 * code block, under the topic "JSON". Python's json.dumps(indent=2) escapes non-ASCII
 * characters; so does this, so that the text is the one Zulip posts.
 */
export const json: Integration = {
  displayName: 'JSON',
  listedName: 'JSON formatter',
  payload: 'json',
  handle: ({ payload }) => ({
    topic: 'JSON',
    body: '```json\n' + asciiJson(payload.value) + '\n```',
  }),
};

function asciiJson(v: unknown): string {
  return JSON.stringify(v, null, 2).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
