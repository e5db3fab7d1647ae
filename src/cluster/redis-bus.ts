import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { BusNotice, BusPlace, EventBus } from '../events/bus.js';
import type { EventEnvelope } from '../events/types.js';
import { compareIds, STREAM_START } from './stream-ids.js';

/** The one stream every node appends to and reads from: one order for the whole cluster. */
export const busStream = (cluster: string): string => `${cluster}:bus`;

export interface RedisBusOptions {
  /** The cluster's name: its keys' prefix. */
  cluster: string;
  /** Entries older than this are trimmed (the bound on how long a queue can wait to move). */
  retentionMs: number;
  /** And never more entries than this. */
  maxEntries: number;
}

type Entry = { e: EventEnvelope } | { n: BusNotice };

/**
 * The event bus of a cluster: a Redis stream. Publishing appends an entry (XADD); every
 * node, the publisher included, reads the stream in order (XREAD BLOCK) and hands each
 * entry to its listeners. One stream gives one order: every node delivers the same
 * envelopes in the same sequence, which is what lets another node rebuild a queue
 * (src/events/manager.ts) with the same event ids. Appends from one connection keep
 * their order, so each publisher's order holds.
 *
 * Two connections: a blocking read holds its connection. Both retry for ever through a
 * Redis outage (ioredis queues commands meanwhile), so a publish made while Redis is away
 * is appended when it returns, and requests that published wait for it (settled()).
 */
export class RedisBus implements EventBus {
  readonly nodeId = crypto.randomBytes(4).toString('hex');
  readonly shared = true;
  private listeners = new Set<(e: EventEnvelope, place: BusPlace) => void>();
  private noticeListeners = new Set<(n: BusNotice, place: BusPlace) => void>();
  private last = STREAM_START;
  private inflight = new Set<Promise<string | null>>();
  private waiters: Array<{ id: string; resolve: () => void }> = [];
  private closed = false;
  private reading: Promise<void> | undefined;
  private trimTimer: NodeJS.Timeout | undefined;
  private outage = false;
  private readonly stream: string;
  /** The newest id this node's appends were given: a test waits for every node to reach it. */
  lastAppended = STREAM_START;
  /**
   * This node's own entries until it hears them back, by their number in its appends:
   * the node that published an envelope uses the object it has instead of parsing the
   * entry again (a send's envelope is kilobytes).
   */
  private own = new Map<number, Entry>();
  private appended = 0;
  /**
   * How far behind the bus this node heard its latest batch: the time since Redis stamped
   * the batch's last entry (its id is that time in ms). Read by the metrics.
   */
  lagMs = 0;

  constructor(readonly commands: Redis, private reader: Redis, private log: Logger, private opts: RedisBusOptions) {
    this.stream = busStream(opts.cluster);
  }

  /** Starts hearing the stream from its current end: what was published before is not this node's. */
  async start(): Promise<void> {
    this.last = await lastGeneratedId(this.commands, this.stream);
    this.reading = this.readLoop();
    this.trimTimer = setInterval(() => {
      this.commands.xtrim(this.stream, 'MAXLEN', '~', this.opts.maxEntries).catch((err: unknown) => this.log.warn({ err }, 'bus trim failed'));
    }, 10_000);
    this.trimTimer.unref();
  }

  /** Appends sent to Redis and not yet acknowledged. */
  get appending(): number {
    return this.inflight.size;
  }

  get unsettled(): boolean {
    return this.inflight.size > 0;
  }

  position(): string {
    return this.last;
  }

  publish(envelope: EventEnvelope): void {
    this.append({ e: envelope });
  }

  announce(notice: BusNotice): void {
    this.append({ n: notice });
  }

  private append(entry: Entry): void {
    const minId = String(Math.max(0, Date.now() - this.opts.retentionMs));
    const n = ++this.appended;
    this.own.set(n, entry);
    const p = this.commands.xadd(this.stream, 'MINID', '~', minId, '*', 'm', JSON.stringify(entry), 'o', `${this.nodeId}:${n}`);
    this.inflight.add(p);
    const done = (): void => void this.inflight.delete(p);
    p.then((id) => {
      done();
      if (id && compareIds(id, this.lastAppended) > 0) this.lastAppended = id;
    }, (err: unknown) => {
      done();
      this.own.delete(n);
      this.log.error({ err }, 'could not publish on the cluster bus');
    });
  }

  subscribe(listener: (e: EventEnvelope, place: BusPlace) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onNotice(listener: (n: BusNotice, place: BusPlace) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  async settled(): Promise<void> {
    if (this.inflight.size === 0) return;
    const ids = await Promise.allSettled([...this.inflight]);
    let target: string | undefined;
    for (const r of ids) {
      if (r.status === 'fulfilled' && r.value && (!target || compareIds(r.value, target) > 0)) target = r.value;
    }
    if (target) await this.heard(target);
  }

  /** Resolves once this node has heard the entry `id` (or any after it). */
  async heard(id: string): Promise<void> {
    if (compareIds(this.last, id) >= 0 || this.closed) return;
    await new Promise<void>((resolve) => this.waiters.push({ id, resolve }));
  }

  private async readLoop(): Promise<void> {
    while (!this.closed) {
      let batch: Array<[string, Array<[string, string[]]>]> | null;
      try {
        batch = await this.reader.xread('COUNT', 1000, 'BLOCK', 5000, 'STREAMS', this.stream, this.last) as typeof batch;
        if (this.outage) {
          this.outage = false;
          this.log.info('cluster bus readable again');
        }
      } catch (err) {
        if (this.closed) return;
        if (!this.outage) this.log.warn({ err }, 'cluster bus unreadable; retrying');
        this.outage = true;
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      for (const [, entries] of batch ?? []) {
        for (const [id, fields] of entries) this.hear(id, fields);
      }
      // Nothing to read for a whole BLOCK: nothing is behind.
      this.lagMs = batch ? Math.max(0, Date.now() - Number.parseInt(this.last, 10)) : 0;
      this.wakeWaiters();
    }
  }

  private hear(id: string, fields: string[]): void {
    const after = this.last;
    this.last = id;
    let entry: Entry | undefined = this.ownEntry(fields[3]);
    try {
      entry ??= JSON.parse(fields[1] ?? 'null') as Entry;
    } catch (err) {
      this.log.error({ err, id }, 'unreadable cluster bus entry skipped');
      return;
    }
    const place = { at: id, after };
    try {
      if ('e' in entry) for (const l of this.listeners) l(entry.e, place);
      else if ('n' in entry) for (const l of this.noticeListeners) l(entry.n, place);
    } catch (err) {
      this.log.error({ err, id }, 'a cluster bus listener failed');
    }
  }

  /** The entry this node appended as `origin` ("node:number"), if it is this node's. */
  private ownEntry(origin: string | undefined): Entry | undefined {
    if (!origin || !origin.startsWith(this.nodeId) || origin[this.nodeId.length] !== ':') return undefined;
    const n = Number(origin.slice(this.nodeId.length + 1));
    const entry = this.own.get(n);
    this.own.delete(n);
    return entry;
  }

  private wakeWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) (compareIds(this.last, w.id) >= 0 ? w.resolve() : still.push(w));
    this.waiters = still;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // What this node published must reach the others before it goes.
    await Promise.race([Promise.allSettled([...this.inflight]), new Promise((r) => setTimeout(r, 2000).unref())]);
    this.closed = true;
    clearInterval(this.trimTimer);
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
    this.listeners.clear();
    this.noticeListeners.clear();
    this.reader.disconnect();
    await this.reading;
    await this.commands.quit().catch(() => this.commands.disconnect());
  }
}

/** The id of the newest entry ever added (trimmed or not), or the start when there is no stream yet. */
async function lastGeneratedId(redis: Redis, stream: string): Promise<string> {
  try {
    const info = await redis.xinfo('STREAM', stream) as unknown[];
    const i = info.indexOf('last-generated-id');
    return i >= 0 ? String(info[i + 1]) : STREAM_START;
  } catch (err) {
    if (String((err as Error).message).includes('no such key')) return STREAM_START;
    throw err;
  }
}
