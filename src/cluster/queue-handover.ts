import crypto from 'node:crypto';
import type { AppContext } from '../context.js';
import type { BusNotice, BusPlace } from '../events/bus.js';
import type { EventQueue, QueueOptions } from '../events/queue.js';
import type { EventEnvelope } from '../events/types.js';
import type { HeldQueues, QueueHandoverPort } from '../events/manager.js';
import { badEventQueueId } from '../errors.js';
import type { ClusterLink } from './link.js';
import type { DurableQueues } from './durable-queues.js';
import type { UserQueues } from './user-queues.js';
import { rebuildQueue, type Heard } from './queue-rebuild.js';

/** How often a node saves the checkpoints of the queues polled meanwhile. */
const CHECKPOINT_EVERY_MS = 1000;

/**
 * A cluster node's part in its queues' lives: what Redis keeps of each (options and a
 * checkpoint), rebuilding a queue another node held when a poll for it lands here, and
 * letting a queue go when the bus says another node has taken it (the last claim in the
 * bus's order wins). See docs/operations.md, "Cluster operation".
 */
export class QueueHandover implements QueueHandoverPort {
  private durable: DurableQueues;
  private userQueues: UserQueues;
  /** Queues being rebuilt here: what the bus delivered meanwhile, replayed after the stored part. */
  private rebuilding = new Map<string, { heard: Heard[]; done: Promise<EventQueue> }>();
  /** Queues polled since their checkpoint was last saved. */
  private unsaved = new Set<EventQueue>();
  private saveTimer: NodeJS.Timeout;
  private stopNotices: () => void;

  constructor(private ctx: AppContext, cluster: ClusterLink, private held: HeldQueues) {
    this.durable = cluster.queues;
    this.userQueues = cluster.userQueues;
    this.stopNotices = ctx.bus.onNotice((n) => this.notice(n));
    cluster.onReconnect(() => this.redisBack());
    this.saveTimer = setInterval(() => void this.saveUnsaved(), CHECKPOINT_EVERY_MS);
    this.saveTimer.unref();
  }

  /** A queue made here: it holds every bus entry after the position it was made at. */
  created(q: EventQueue, options: QueueOptions): Promise<void> {
    this.touch(q);
    return this.durable.create(q.id, options, { id: 0, pos: this.ctx.bus.position() });
  }

  /** An envelope this node heard: queues being rebuilt get it after what Redis gives them. */
  heard(env: EventEnvelope, place: BusPlace): void {
    for (const r of this.rebuilding.values()) r.heard.push([env, place]);
  }

  /**
   * Saved with the others within a second: an older checkpoint is as correct, only longer
   * to replay, and one Redis write per poll doubled a node's CPU per delivery.
   */
  polled(q: EventQueue): void {
    this.unsaved.add(q);
    this.touch(q);
  }

  /** A queue that takes messages keeps its user from being away (src/notifications/away.ts). */
  private touch(q: EventQueue): void {
    if (q.wants('message')) this.userQueues.alive(q.state.userId, q.id, q.state.lifespanSecs);
  }

  /** The queue is gone: from Redis, and from whichever node holds it. `mine`: it was held here (and is removed). */
  async deleted(id: string, userId: number, mine: boolean): Promise<void> {
    if (!mine) {
      const saved = await this.durable.load(id);
      if (!saved || saved.options.userId !== userId) throw badEventQueueId(id);
    }
    await this.durable.remove(id);
    this.userQueues.gone(userId, id);
    this.ctx.bus.announce({ kind: 'queue', origin: this.ctx.bus.nodeId, op: 'delete', queueId: id, token: '' });
  }

  /**
   * Its lifespan passed here without a poll: gone from Redis too, so that no node rebuilds
   * it. (Another node answering for it would have taken it from here: the bus says so.)
   */
  expired(q: EventQueue): void {
    this.unsaved.delete(q);
    this.userQueues.gone(q.state.userId, q.id);
    void this.durable.remove(q.id).catch(() => undefined);
  }

  /**
   * Rebuilds a queue another node held (or held until it died): from its checkpoint, the
   * bus's entries up to where this node is, then what this node heard while reading them.
   * Then the bus tells the other node to let go.
   */
  takeOver(id: string, userId: number): Promise<EventQueue> {
    const pending = this.rebuilding.get(id);
    if (pending) {
      return pending.done.then((q) => {
        if (q.state.userId !== userId) throw badEventQueueId(id);
        return q;
      });
    }
    // From this moment the bus's entries are collected in `heard`; those before, up to
    // `upto`, are read from Redis. Taken together, so that no entry is in both or neither.
    const heard: Heard[] = [];
    const upto = this.ctx.bus.position();
    const finish = (): void => void this.rebuilding.delete(id);
    const done = (async () => {
      const saved = await this.durable.load(id);
      if (!saved || saved.options.userId !== userId) throw badEventQueueId(id);
      const q = await rebuildQueue(this.durable, id, saved, upto, heard, this.held.deliverTo);
      if (!q) {
        void this.durable.remove(id).catch(() => undefined);
        throw badEventQueueId(id);
      }
      // Whatever arrived after the rebuild's last look is delivered before the queue goes live.
      for (const [env, place] of heard) this.held.deliverTo(q, env, place);
      finish();
      q.token = crypto.randomBytes(6).toString('base64url');
      q.confirmed = false;
      this.held.add(q);
      this.ctx.bus.announce({ kind: 'queue', origin: this.ctx.bus.nodeId, op: 'adopt', queueId: id, token: q.token });
      return q;
    })();
    this.rebuilding.set(id, { heard, done });
    done.catch(finish);
    return done;
  }

  /** A queue taken over or deleted elsewhere is let go here; the last claim on the bus wins. */
  private notice(n: BusNotice): void {
    if (n.kind !== 'queue') return;
    const q = this.held.find(n.queueId);
    if (!q) return;
    if (n.op === 'adopt' && n.token === q.token) {
      q.confirmed = true;
      return;
    }
    // A claim heard before this node's own was confirmed came earlier: this node's is later and wins.
    if (n.op === 'adopt' && !q.confirmed) return;
    // Any poll still parked here belongs to a client now heard elsewhere: it answers empty.
    this.held.remove(q, true);
  }

  /**
   * A heartbeat takes an event id, which no other node could reproduce: its checkpoint is
   * saved before the client hears it (nothing newer reaches the client meanwhile), so that
   * a queue rebuilt elsewhere numbers its next event after the heartbeat the client saw.
   */
  heartbeat(q: EventQueue, json: string): void {
    q.parkedAt = Number.POSITIVE_INFINITY; // one heartbeat per parked poll
    q.push(json, { id: q.state.nextEventId + 1, pos: this.ctx.bus.position() }, false);
    q.held = true;
    void (this.save(q) ?? Promise.resolve()).then(() => {
      q.held = false;
      q.wake();
    });
  }

  /**
   * Redis was away, and may have restarted empty: every queue here is saved whole again
   * once nothing unacknowledged remains in it (events still unacknowledged came from bus
   * entries that may be gone: until then, only this node can answer for the queue).
   */
  private redisBack(): void {
    this.userQueues.forget();
    for (const q of this.held.all()) {
      q.stored = false;
      void this.save(q);
    }
  }

  private saveUnsaved(): Promise<unknown> {
    const queues = [...this.unsaved];
    this.unsaved.clear();
    return Promise.all(queues.map((q) => this.held.find(q.id) === q && this.save(q)));
  }

  /** At shutdown: every queue's latest checkpoint, so that another node rebuilds it from there. */
  async saveAll(queues: Iterable<EventQueue>): Promise<void> {
    this.unsaved.clear();
    await Promise.all([...queues].map((q) => this.save(q)));
  }

  /** Saves where the queue could be rebuilt from, when that has moved since last saved. */
  private save(q: EventQueue): Promise<void> | undefined {
    const ck = q.checkpoint(this.ctx.bus.position());
    if (!q.stored) {
      if (q.state.events.length > 0) return undefined;
      q.stored = true;
      q.savedId = ck.id;
      const { id: _id, nextEventId: _next, events: _events, lastAccess: _last, ...options } = q.state;
      return this.durable.create(q.id, options, ck).catch((err: unknown) => {
        q.stored = false;
        this.ctx.log.warn({ err, queue: q.id }, 'could not save an event queue again after Redis came back');
      });
    }
    if (ck.id === q.savedId) return undefined;
    q.savedId = ck.id;
    return this.durable.checkpoint(q.id, ck, q.state.lifespanSecs).catch((err: unknown) => {
      q.savedId = -1;
      this.ctx.log.warn({ err, queue: q.id }, 'could not save an event queue checkpoint');
    });
  }

  close(): void {
    clearInterval(this.saveTimer);
    this.stopNotices();
  }
}
