/**
 * The seam between actions and event queues. Actions publish after COMMIT; the
 * queue manager (one per process) subscribes and routes each event to the queues
 * of the listed users. In-process today; a Redis implementation fans out across
 * nodes with the same contract: every subscriber on every node sees every
 * published envelope exactly once, in publish order per publisher.
 */
export type ParleyEvent = { type: string; [key: string]: unknown };

export interface EventEnvelope {
  realmId: number;
  event: ParleyEvent;
  userIds: number[];
}

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
