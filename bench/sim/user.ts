/**
 * One simulated user, after Mattermost load-test-ng's simulative controller: it registers a
 * queue and long-polls it for as long as it lives, reports presence at start and every
 * 60 s, and otherwise waits (at least `thinkMin`, `thinkMean` on average, exponentially
 * distributed) between actions picked by weight: switch narrow 6.5 : scroll back 2 :
 * send 1 (typing first) : unread check / mark read 1 : reaction `reactionWeight`.
 */
import type { Pool } from 'undici';
import { RawPoller } from '../lib/raw-poller.js';
import type { ClientProfile } from './client.js';
import type { SimUser } from './shape.js';
import { TOPICS } from './shape.js';

export interface Recorder {
  op(name: string, ms: number, ok: boolean): void;
  delivery(ms: number): void;
}

export interface UserEnv { pool: Pool; host: string; port: number; hostHeader: string; client: ClientProfile; thinkMean: number; thinkMin: number; reactionWeight: number; rec: Recorder }

const now = () => performance.timeOrigin + performance.now();
const EMOJI = ['thumbs_up', 'heart', 'tada', 'smile', 'octopus', 'rocket'];
const STAMP = /sim-t=(\d+(?:\.\d+)?)/;
const form = (o: Record<string, string | number>) => new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)])).toString();

class ApiFailure extends Error {
  constructor(readonly status: number, readonly body: string) { super(`HTTP ${status}: ${body.slice(0, 200)}`); }
}

export class SimulatedUser {
  private auth: string;
  private running = true;
  private poller: RawPoller | undefined;
  private queueId = '';
  private lastEventId = -1;
  private myId = 0;
  private streams: Array<{ id: number; name: string }> = [];
  private narrow: { name: string; oldest: number } | undefined;
  private unread = new Set<number>();
  private recent: number[] = [];
  private reacted = new Set<string>();
  private timers = new Set<NodeJS.Timeout>();
  private sleeping: (() => void) | undefined;

  constructor(private env: UserEnv, private me: SimUser) {
    this.auth = `Basic ${Buffer.from(`${me.email}:${me.apiKey}`).toString('base64')}`;
  }

  async start(): Promise<void> {
    await this.register();
    await this.presence();
    const t = setInterval(() => void this.presence().catch(() => undefined), 60_000);
    this.timers.add(t);
    void this.pollLoop();
    // Terminal's first view: the home view at the first unread message.
    await this.call('home_view', 'GET', `/api/v1/messages?${form({ anchor: 0, use_first_unread_anchor: 'true', num_before: 30, num_after: 10, apply_markdown: 'true', client_gravatar: 'true', narrow: '[]' })}`)
      .then((r) => this.saw(r.messages)).catch(() => undefined);
    void this.actLoop();
  }

  stop(): void {
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.sleeping?.();
    this.poller?.close();
  }

  private async call(op: string, method: string, path: string, body?: Record<string, string | number>): Promise<any> {
    const t0 = performance.now();
    let status: number;
    let text: string;
    try {
      const res = await this.env.pool.request({
        method: method as 'GET', path,
        headers: { authorization: this.auth, 'user-agent': this.env.client.userAgent, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(body ? { body: form(body) } : {}),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (e) {
      this.env.rec.op(op, performance.now() - t0, false);
      throw e;
    }
    this.env.rec.op(op, performance.now() - t0, status === 200);
    if (status !== 200) throw new ApiFailure(status, text);
    return JSON.parse(text);
  }

  private async register(): Promise<void> {
    const r = await this.call('register', 'POST', '/api/v1/register', this.env.client.register);
    this.queueId = r.queue_id;
    this.lastEventId = r.last_event_id;
    if (typeof r.user_id === 'number') this.myId = r.user_id;
    if (Array.isArray(r.subscriptions)) this.streams = r.subscriptions.map((s: { stream_id: number; name: string }) => ({ id: s.stream_id, name: s.name }));
    for (const s of r.unread_msgs?.streams ?? []) for (const id of s.unread_message_ids) if (this.unread.size < 500) this.unread.add(id);
    if (!this.myId) this.myId = (await this.call('own_user', 'GET', '/api/v1/users/me')).user_id;
  }

  private async presence(): Promise<void> {
    if (!this.running) return;
    await this.call('presence', 'POST', '/api/v1/users/me/presence', { status: 'active', new_user_input: 'true' });
  }

  private async pollLoop(): Promise<void> {
    let failures = 0;
    while (this.running) {
      this.poller ??= new RawPoller(this.env.host, this.env.port, this.env.hostHeader);
      const t0 = performance.now();
      let r: { status: number; body: string } | undefined;
      try {
        r = await this.poller.get(`/api/v1/events?queue_id=${encodeURIComponent(this.queueId)}&last_event_id=${this.lastEventId}`, this.auth);
      } catch {
        this.poller.close();
        this.poller = undefined;
      }
      if (!this.running) return;
      this.env.rec.op('events', performance.now() - t0, r?.status === 200);
      if (r?.status === 200) {
        failures = 0;
        this.onEvents(JSON.parse(r.body).events);
        continue;
      }
      if (r && r.body.includes('BAD_EVENT_QUEUE_ID')) await this.register().catch(() => undefined);
      await new Promise((res) => setTimeout(res, Math.min(10_000, 500 * 2 ** failures++)));
    }
  }

  private onEvents(events: Array<{ id: number; type: string; message?: { id: number; sender_id: number; content: string; flags?: string[] } ; flags?: string[] }>): void {
    const at = now();
    for (const e of events) {
      if (e.id > this.lastEventId) this.lastEventId = e.id;
      if (e.type !== 'message' || !e.message) continue;
      this.remember(e.message.id);
      if (e.message.sender_id === this.myId) continue;
      if (!(e.flags ?? []).includes('read') && this.unread.size < 500) this.unread.add(e.message.id);
      const stamp = STAMP.exec(e.message.content);
      if (stamp) this.env.rec.delivery(at - Number(stamp[1]));
    }
  }

  private remember(id: number): void {
    this.recent.push(id);
    if (this.recent.length > 30) this.recent.shift();
  }

  private saw(messages: Array<{ id: number; flags: string[] }> | undefined): number {
    let oldest = Infinity;
    for (const m of messages ?? []) {
      oldest = Math.min(oldest, m.id);
      this.remember(m.id);
      if (!m.flags.includes('read') && this.unread.size < 500) this.unread.add(m.id);
    }
    return oldest;
  }

  private think(): number {
    const extra = this.env.thinkMean - this.env.thinkMin;
    return 1000 * (this.env.thinkMin + (extra > 0 ? -Math.log(1 - Math.random()) * extra : 0));
  }

  private async actLoop(): Promise<void> {
    const w = this.env.reactionWeight;
    const acts: Array<[number, () => Promise<void>]> = [
      [6.5, () => this.switchNarrow()], [2, () => this.scrollBack()], [1, () => this.send()], [1, () => this.unreadOrMarkRead()], [w, () => this.react()],
    ];
    const total = acts.reduce((s, [x]) => s + x, 0);
    while (this.running) {
      await new Promise<void>((res) => {
        const t = setTimeout(() => { this.timers.delete(t); res(); }, this.think());
        this.timers.add(t);
        this.sleeping = () => { clearTimeout(t); res(); };
      });
      if (!this.running) return;
      let x = Math.random() * total;
      const act = acts.find(([weight]) => (x -= weight) < 0)?.[1] ?? acts[0]![1];
      await act().catch(() => undefined); // counted by call(); the user goes on
    }
  }

  private pickStream() {
    return this.streams[Math.floor(Math.random() * this.streams.length)];
  }

  private async switchNarrow(): Promise<void> {
    const s = this.pickStream();
    if (!s) return;
    const r = await this.call('switch_narrow', 'GET', `/api/v1/messages?${form({
      anchor: 'first_unread', num_before: 30, num_after: 10, apply_markdown: 'true', client_gravatar: 'true',
      narrow: JSON.stringify([{ operator: 'stream', operand: s.name }]),
    })}`);
    this.narrow = { name: s.name, oldest: this.saw(r.messages) };
  }

  private async scrollBack(): Promise<void> {
    if (!this.narrow || !Number.isFinite(this.narrow.oldest)) return this.switchNarrow();
    const r = await this.call('scroll_back', 'GET', `/api/v1/messages?${form({
      anchor: this.narrow.oldest, include_anchor: 'false', num_before: 30, num_after: 0, apply_markdown: 'true', client_gravatar: 'true',
      narrow: JSON.stringify([{ operator: 'stream', operand: this.narrow.name }]),
    })}`);
    const oldest = this.saw(r.messages);
    // At the start of the stream's history the next scroll begins again from the newest.
    this.narrow.oldest = r.found_oldest ? Infinity : Math.min(this.narrow.oldest, oldest);
  }

  private async send(): Promise<void> {
    const s = this.pickStream();
    if (!s) return;
    const topic = TOPICS[Math.floor(Math.random() * TOPICS.length)]!;
    await this.call('typing', 'POST', '/api/v1/typing', { type: 'stream', op: 'start', to: JSON.stringify([s.id]), topic });
    await this.call('send', 'POST', '/api/v1/messages', {
      type: 'stream', to: s.id, topic,
      content: `Simulated message sim-t=${now().toFixed(1)} from a load test: some words about ${topic}, **bold** and \`code\`.`,
    });
  }

  private async unreadOrMarkRead(): Promise<void> {
    if (this.unread.size === 0) {
      const r = await this.call('unread_check', 'GET', `/api/v1/messages?${form({
        anchor: 'newest', num_before: 50, num_after: 0, apply_markdown: 'true', client_gravatar: 'true',
        narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }]),
      })}`);
      this.saw(r.messages);
      return;
    }
    const ids = [...this.unread].slice(0, 200);
    for (const id of ids) this.unread.delete(id);
    await this.call('mark_read', 'POST', '/api/v1/messages/flags', { messages: JSON.stringify(ids), op: 'add', flag: 'read' });
  }

  private async react(): Promise<void> {
    for (let tries = 0; tries < 5 && this.recent.length > 0; tries++) {
      const id = this.recent[Math.floor(Math.random() * this.recent.length)]!;
      const emoji = EMOJI[Math.floor(Math.random() * EMOJI.length)]!;
      if (this.reacted.has(`${id}:${emoji}`)) continue;
      this.reacted.add(`${id}:${emoji}`);
      await this.call('reaction', 'POST', `/api/v1/messages/${id}/reactions`, { emoji_name: emoji });
      return;
    }
  }
}
