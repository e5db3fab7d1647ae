/**
 * The operations bench/cluster-cost.ts times, as closed loops over undici Pools (one per
 * node) and raw long-polling sockets: cheap on the load generator, so that the server's
 * CPU is what the two shared cores mostly spend.
 */
import { Pool } from 'undici';
import { RawPoller } from './raw-poller.js';

export interface Account { id: number; email: string; key: string }
export const basic = (a: Account): string => 'Basic ' + Buffer.from(`${a.email}:${a.key}`).toString('base64');
const FORM = 'application/x-www-form-urlencoded';
const form = (p: Record<string, string>): string => new URLSearchParams(p).toString();

/** What zulip-terminal registers with (client-compat.md 1.3): every POST /register of the register run. */
export const TERMINAL_EVENT_TYPES = ['message', 'update_message', 'reaction', 'submessage', 'subscription', 'typing', 'update_message_flags', 'user_settings', 'realm_emoji', 'realm_user'];
export const TERMINAL_REGISTER = form({
  event_types: JSON.stringify(TERMINAL_EVENT_TYPES),
  fetch_event_types: JSON.stringify(['realm', 'presence', 'subscription', 'message', 'starred_messages', 'update_message_flags', 'muted_topics', 'realm_user', 'realm_user_groups', 'user_settings', 'realm_emoji', 'custom_profile_fields', 'zulip_version']),
  client_gravatar: 'true', apply_markdown: 'true', include_subscribers: 'true', narrow: '[]',
});

export class Node {
  readonly pool: Pool;
  readonly url: URL;
  constructor(readonly base: string, readonly pid: number) {
    this.url = new URL(base);
    this.pool = new Pool(base, { connections: 8, pipelining: 1 });
  }

  /** `parse` false: the answer is read but not parsed (a register's is large; parsing it would load the generator). */
  async call(method: 'GET' | 'POST' | 'DELETE', path: string, auth: string, body?: Record<string, string> | string, parse = true): Promise<any> {
    const r = await this.pool.request({
      method, path: `/api/v1${path}`, body: typeof body === 'string' ? body : body && form(body),
      headers: { authorization: auth, ...(body ? { 'content-type': FORM } : {}) },
    });
    const text = await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${method} ${path} on ${this.base}: ${r.statusCode} ${text.slice(0, 300)}`);
    return parse ? JSON.parse(text) : undefined;
  }
}

/** Deliveries still awaited per message, by the sequence number in its content. */
export class Deliveries {
  private pending = new Map<number, { left: number; resolve: () => void; timer: NodeJS.Timeout }>();
  /** Poll answers and the events they carried: a poll answered with one event is the unit measured. */
  answers = 0;
  events = 0;

  expect(seq: number, count: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`message ${seq}: ${this.pending.get(seq)?.left} of ${count} deliveries missing after 20 s`)), 20_000);
      this.pending.set(seq, { left: count, resolve, timer });
    });
  }

  heard(seq: number): void {
    const p = this.pending.get(seq);
    if (!p || --p.left > 0) return;
    clearTimeout(p.timer);
    this.pending.delete(seq);
    p.resolve();
  }
}

/** One subscriber's queue, long-polled over its own socket on one node, for as long as `running`. */
export class Listener {
  private client: RawPoller;
  private last = -1;
  private running = true;
  done: Promise<void> = Promise.resolve();

  private constructor(readonly node: Node, readonly auth: string, readonly queueId: string) {
    this.client = new RawPoller(node.url.hostname, Number(node.url.port), node.url.host);
  }

  static async register(node: Node, account: Account): Promise<Listener> {
    const r = await node.call('POST', '/register', basic(account), {
      event_types: JSON.stringify(['message']), fetch_event_types: JSON.stringify(['message']), apply_markdown: 'true', client_gravatar: 'true',
    });
    return new Listener(node, basic(account), r.queue_id as string);
  }

  start(deliveries: Deliveries): void {
    this.done = (async () => {
      while (this.running) {
        const r = await this.client.get(`/api/v1/events?queue_id=${encodeURIComponent(this.queueId)}&last_event_id=${this.last}`, this.auth).catch(() => undefined);
        if (!this.running) return;
        if (r?.status !== 200) throw new Error(`poll of ${this.queueId} on ${this.node.base}: ${r?.status} ${r?.body.slice(0, 200)}`);
        const events = JSON.parse(r.body).events as Array<{ id: number; type: string; message?: { content: string } }>;
        deliveries.answers++;
        for (const e of events) {
          this.last = Math.max(this.last, e.id);
          if (e.type !== 'message') continue;
          deliveries.events++;
          deliveries.heard(Number(/tick (\d+)/.exec(e.message!.content)?.[1]));
        }
      }
    })();
  }

  /** Stops polling and deletes the queue, so that later runs deliver nothing to it. */
  async stop(): Promise<void> {
    this.running = false;
    this.client.close();
    await this.node.call('DELETE', '/events', this.auth, { queue_id: this.queueId });
  }
}

let nextSeq = 0;

/**
 * POST /messages to the 100-subscriber stream, `senders` at a time, until `durationMs` has
 * passed; message i goes to nodes[i % nodes.length]. With `deliveries`, each sender waits
 * until every listener has heard its message before sending again (so each poll answers
 * with one event). Returns how many were sent.
 */
export async function sendLoop(nodes: Node[], senders: Account[], durationMs: number, deliveries?: { to: Deliveries; listeners: number }): Promise<number> {
  const end = Date.now() + durationMs;
  let sent = 0;
  await Promise.all(senders.map(async (s, w) => {
    const auth = basic(s);
    while (Date.now() < end) {
      const seq = nextSeq++;
      const delivered = deliveries?.to.expect(seq, deliveries.listeners);
      await nodes[seq % nodes.length]!.call('POST', '/messages', auth, { type: 'stream', to: 'subs100', topic: `t${w % 4}`, content: `tick ${seq} with **markdown**` });
      await delivered;
      sent++;
    }
  }));
  return sent;
}

/** POST /register as zulip-terminal does, `concurrency` at a time; request i goes to nodes[i % nodes.length]. */
export async function registerLoop(nodes: Node[], account: Account, concurrency: number, durationMs: number): Promise<number> {
  const end = Date.now() + durationMs;
  let done = 0;
  let i = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < end) {
      await nodes[i++ % nodes.length]!.call('POST', '/register', basic(account), TERMINAL_REGISTER, false);
      done++;
    }
  }));
  return done;
}
