import crypto from 'node:crypto';
import type { EventEnvelope } from './types.js';
import type { PresenceAnswerRow } from '../cache/presence.js';

/**
 * Messages between the nodes of a cluster that are not events for users: cached values
 * to retire (rows written on another node), a presence stored (cached rows to patch), and
 * a queue's move to another node. They travel on the same ordered bus as the envelopes,
 * so a node that hears an event has already heard every retirement published before it.
 */
export type BusNotice =
  | { kind: 'retire'; origin: string; scopes: string[]; messageIds?: number[] }
  | { kind: 'queue'; origin: string; op: 'adopt' | 'delete'; queueId: string; token: string }
  | { kind: 'presence'; origin: string; realmId: number; row: PresenceAnswerRow; listed?: boolean };

/**
 * Where a delivery stands in the bus's one order: `at` is the entry's position, `after`
 * the position of the entry the node heard before it. In one process both are ''.
 */
export interface BusPlace { at: string; after: string }

/**
 * The seam between publish() and event queues. The queue manager (one per process)
 * subscribes and routes each envelope to the queues of the listed users; the cache layer
 * subscribes to retire what the event changed. Every subscriber on every node sees every
 * published envelope exactly once, in one order that keeps each publisher's order: in one
 * process (InProcessBus) or across a cluster's nodes (src/cluster/redis-bus.ts).
 */
export interface EventBus {
  /** This process's name on the bus: notices carry it as their origin. */
  readonly nodeId: string;
  /** True when other processes hear what this one publishes (a cluster). */
  readonly shared: boolean;
  publish(envelope: EventEnvelope): void;
  subscribe(listener: (envelope: EventEnvelope, place: BusPlace) => void): () => void;
  /** Tells every node (this one too, in order); a no-op in one process. */
  announce(notice: BusNotice): void;
  onNotice(listener: (notice: BusNotice, place: BusPlace) => void): () => void;
  /** The position of the last entry this node has heard ('' in one process). */
  position(): string;
  /**
   * Resolves once everything published so far is on the bus and this node has heard it:
   * a request that published answers only then, so that an acknowledged send's event
   * cannot be lost with its node, and this node's own queues already hold it.
   */
  settled(): Promise<void>;
  /** Whether publishes are waiting for settled(). */
  readonly unsettled: boolean;
  close(): Promise<void>;
}

const HERE: BusPlace = { at: '', after: '' };

export class InProcessBus implements EventBus {
  readonly nodeId = crypto.randomBytes(4).toString('hex');
  readonly shared = false;
  readonly unsettled = false;
  private listeners = new Set<(e: EventEnvelope, place: BusPlace) => void>();

  publish(envelope: EventEnvelope): void {
    for (const l of this.listeners) l(envelope, HERE);
  }

  subscribe(listener: (e: EventEnvelope, place: BusPlace) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  announce(): void {
    /* one process: nobody else to tell */
  }

  onNotice(): () => void {
    return () => undefined;
  }

  position(): string {
    return '';
  }

  async settled(): Promise<void> {
    /* delivered synchronously by publish() */
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
