import type { Wild } from './wild.js';

/** What an integration is given: the decoded payload, the request's headers (lowercase names) and parameters. */
export interface WebhookInput {
  payload: Wild;
  headers: Readonly<Record<string, string | undefined>>;
  /** Query and form parameters by name (the integration's own options: GitHub's `branches`, say). */
  param(name: string): string | undefined;
  /** The caller named a topic: some integrations (GitHub, GitLab) then put the title in the body. */
  userTopic: boolean;
}

/** The message an event becomes; `event` is Zulip's complete event type, matched by only_events/exclude_events. */
export interface WebhookMessage {
  topic: string;
  body: string;
  event?: string;
}

/**
 * One integration, named as Zulip names it in the URL. `handle` is pure: it maps a payload
 * to a message (null: an event that is known and deliberately ignored) or throws an
 * ApiError. `payload`: 'json' parses the body as JSON; 'json-or-form' also takes a form's
 * fields (or Slack's form field `payload`).
 */
export interface Integration {
  /** Zulip's display name, as in its errors ("... by the GitHub webhook"). */
  displayName: string;
  /** Zulip's Integration.display_name (register's realm_incoming_webhook_bots), when not `displayName`. */
  listedName?: string;
  payload: 'json' | 'slack-form';
  /**
   * Every event type `handle` can answer (what only_events / exclude_events match), as
   * register's realm_incoming_webhook_bots lists them (Zulip's ALL_EVENT_TYPES); left out
   * for an integration without event types (null there).
   */
  allEventTypes?: readonly string[];
  /** The header that names the event, when the integration needs one (the owner is told when it is missing). */
  eventHeader?: string;
  handle(input: WebhookInput): WebhookMessage | null;
}
