import type { EventEnvelope } from './types.js';

/**
 * The seam between publish() and event queues. The queue manager (one per process)
 * subscribes and routes each envelope to the queues of the listed users; the cache layer
 * subscribes to retire what the event changed. In-process today; a Redis implementation
 * fans out across nodes with the same contract: every subscriber on every node sees
 * every published envelope exactly once, in publish order per publisher.
 */
export interface EventBus {
  publish(envelope: EventEnvelope): void;
  subscribe(listener: (envelope: EventEnvelope) => void): () => void;
  close(): Promise<void>;
}

export class InProcessBus implements EventBus {
  private listeners = new Set<(e: EventEnvelope) => void>();

  publish(envelope: EventEnvelope): void {
    for (const l of this.listeners) l(envelope);
  }

  subscribe(listener: (e: EventEnvelope) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
