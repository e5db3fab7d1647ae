import type { Integration } from './types.js';
import { helloworld } from './helloworld.js';
import { github } from './github.js';
import { gitlab } from './gitlab.js';
import { slackIncoming } from './slack-incoming.js';
import { json } from './json.js';

export type { Integration, WebhookInput, WebhookMessage } from './types.js';
export { Wild } from './wild.js';

/** Every integration by the name in its URL (/api/v1/external/<name>), as Zulip names them. */
const INTEGRATIONS: ReadonlyMap<string, Integration> = new Map([
  ['helloworld', helloworld],
  ['github', github],
  ['gitlab', gitlab],
  ['slack_incoming', slackIncoming],
  ['json', json],
]);

export const integrationNamed = (name: string): Integration | undefined => INTEGRATIONS.get(name);

/** Level 318 renamed `config` (key → label) to `config_options` (a list of {key, label, validator}). */
export type IncomingWebhookBot = { name: string; display_name: string; all_event_types: string[] | null } &
  ({ config: Record<string, string> } | { config_options: Array<{ key: string; label: string; validator: string }> });
export const CONFIG_OPTIONS_LEVEL = 318;

/**
 * register's realm_incoming_webhook_bots (Zulip's, with display_name and all_event_types
 * from feature level 207): the integrations this server takes. `config` (config_options
 * from level 318) describes an integration's configuration keys; none of Parley's has any.
 */
export const incomingWebhookBots = (featureLevel: number): IncomingWebhookBot[] => [...INTEGRATIONS].map(([name, i]) => ({
  name, display_name: i.listedName ?? i.displayName, all_event_types: i.allEventTypes ? [...i.allEventTypes] : null,
  ...(featureLevel >= CONFIG_OPTIONS_LEVEL ? { config_options: [] } : { config: {} }),
}));

/**
 * only_events / exclude_events: Unix shell-style patterns (Python's fnmatch) over the
 * integration's complete event type. True when the event should be posted.
 */
export function eventWanted(event: string | undefined, only: string[] | undefined, exclude: string[] | undefined): boolean {
  if (event === undefined) return true;
  if (only && !only.some((p) => fnmatch(event, p))) return false;
  if (exclude && exclude.some((p) => fnmatch(event, p))) return false;
  return true;
}

function fnmatch(name: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) re += '\\[';
      else {
        let set = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (set.startsWith('!')) set = `^${set.slice(1)}`;
        re += `[${set}]`;
        i = end;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`^${re}$`, 's').test(name);
  } catch {
    return false;
  }
}
