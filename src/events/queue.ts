import type { ResolvedTerm } from '../narrow/types.js';

export interface Capabilities {
  notification_settings_null: boolean;
  bulk_message_deletion: boolean;
  user_avatar_url_field_optional: boolean;
  stream_typing_notifications: boolean;
  user_settings_object: boolean;
  /** Level 176: linkifiers as RFC 6570 templates (register and realm_linkifiers events); no legacy realm_filters. */
  linkifier_url_template?: boolean;
  /** From level 176 a client without linkifier_url_template is given no linkifiers (register's are empty), so no events of them. */
  linkifiers_withheld?: boolean;
  /** Level 315: register's subscription lists include archived streams (is_archived). */
  archived_channels?: boolean;
  /** Level 334: the client shows the empty topic ""; without it, events and register name it by its display name. */
  empty_topic_name?: boolean;
  /**
   * Deactivated user groups (level 290) in register and as `update` events: from level 294
   * for clients declaring include_deactivated_groups; at 290-293 for all; below, for none
   * (they are told of a deactivation as of a deletion).
   */
  include_deactivated_groups?: boolean;
}

export interface QueueOptions {
  userId: number;
  realmId: number;
  /** null: every type. */
  eventTypes: string[] | null;
  narrow: ResolvedTerm[];
  allPublicStreams: boolean;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  capabilities: Capabilities;
  lifespanSecs: number;
}

/**
 * An event as queued: its id, and the event serialised without the id (shared between
 * queues). In a cluster, `ck`: a checkpoint from which the queue, rebuilt on another
 * node, would hold this event and those after it with the same ids.
 */
/**
 * A point from which a queue can be rebuilt (src/cluster/durable-queues.ts): the bus entries
 * after `pos` give the queue's events, numbered from `id`. Every node hears the same entries
 * in the same order and shapes them the same way for a queue, so the rebuilt queue has the
 * ids the client saw.
 */
export interface Checkpoint { id: number; pos: string }

export interface QueuedEvent { id: number; json: string; ck?: Checkpoint }

/** What a saved queue looks like on disk (and in memory, minus the parked request). */
export interface QueueState extends QueueOptions {
  id: string;
  nextEventId: number;
  events: QueuedEvent[];
  lastAccess: number;
}

/** One client's event queue: a buffer of events not yet acknowledged, and at most one parked poll. */
export class EventQueue {
  waiter: ((events: QueuedEvent[]) => void) | undefined;
  /** When the parked poll (if any) began waiting: its heartbeat is due heartbeatMs later. */
  parkedAt = 0;
  /**
   * In a cluster: this node's claim on the queue (`token`, announced when it took the
   * queue over), whether the bus has confirmed it (`confirmed`: a later claim by another
   * node then wins), and the checkpoint id last saved, to skip saving the same one again.
   */
  token = '';
  confirmed = true;
  savedId = -1;
  /** While a heartbeat's checkpoint is being saved (a cluster's), nothing newer may reach the client. */
  held = false;
  /** False after Redis came back (it may have lost the queue): saved whole again once it can be. */
  stored = true;

  constructor(public state: QueueState) {}

  get id(): string {
    return this.state.id;
  }

  wants(type: string): boolean {
    // Heartbeats reach every queue, whatever it asked for (they keep the poll alive); a
    // restart only reaches queues that asked for it, as in Zulip.
    const types = this.state.eventTypes;
    if (types === null || type === 'heartbeat') return true;
    // As Zulip: a client taking user_topic events gets no legacy muted_topics ones (it names
    // both only to hear muted_topics from servers without user_topic).
    if (type === 'muted_topics' && types.includes('user_topic')) return false;
    return types.includes(type);
  }

  /** `json`: one serialised event object, as from JSON.stringify. `wake` false: a parked poll hears it later (wake()). */
  push(json: string, ck?: Checkpoint, wake = true): void {
    this.state.events.push(ck ? { id: this.state.nextEventId++, json, ck } : { id: this.state.nextEventId++, json });
    // Zulip bounds a queue too: a client that never polls cannot grow it without limit.
    if (this.state.events.length > 10_000) this.state.events.splice(0, this.state.events.length - 10_000);
    if (wake) this.wake();
  }

  /**
   * Where this queue could be rebuilt from now, every bus entry up to `pos` having been
   * delivered to it: before its oldest unacknowledged event, or after everything.
   */
  checkpoint(pos: string): Checkpoint {
    return this.state.events[0]?.ck ?? { id: this.state.nextEventId, pos };
  }

  /** Drops what the client has acknowledged, then answers what remains. */
  acknowledge(lastEventId: number): QueuedEvent[] {
    this.state.lastAccess = Date.now();
    const events = this.state.events;
    // Ids ascend, so the acknowledged ones are a prefix.
    let keep = 0;
    while (keep < events.length && events[keep]!.id <= lastEventId) keep++;
    if (keep > 0) events.splice(0, keep);
    return events;
  }

  wake(): void {
    const w = this.waiter;
    if (w && this.state.events.length > 0 && !this.held) {
      this.waiter = undefined;
      this.state.lastAccess = Date.now();
      w(this.state.events);
    }
  }

  /**
   * Answers a parked poll now, even with nothing to say (shutdown). `empty`: with no
   * events, for a poll another node now answers (its client must not hear them twice).
   */
  release(empty = false): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = undefined;
    this.state.lastAccess = Date.now();
    w(empty || this.held ? [] : this.state.events);
  }
}
