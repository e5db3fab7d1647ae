/**
 * The app's state: register's answer and the messages it holds, kept current by the server's
 * own event-application logic (src/events/apply.ts, the code the event guard tests), plus
 * what only the views need: the open message list, local echoes, who is typing. Components read it and re-render
 * on `version`; changes are coalesced into one render per animation frame.
 */
import { applyEvent } from '../../src/events/apply';
import { applyToHeldMessages, type HeldChanges } from '../../src/events/apply/held-messages';
import type { TypingEvent } from '../../src/events/types';
import type { Narrow } from './narrow';
import { matches } from './narrow';
import type { ClientEvent, Message, Register, State } from './types';

/** The events after which the lookup tables (people, streams) are rebuilt. */
const LOOKUP_SOURCES = new Set<ClientEvent['type']>(['realm_user', 'stream', 'subscription']);

export type Conn = 'connecting' | 'live' | 'offline';

export class MessageList {
  ids: number[] = [];
  foundOldest = false;
  foundNewest = false;
  loadingOlder = false;
  loadingNewer = false;
  /** The message the view opened at (first unread), scrolled to once. */
  anchor: number | null = null;
  error: string | null = null;
  constructor(readonly narrow: Narrow) {}

  insert(id: number): void {
    let i = this.ids.length;
    while (i > 0 && this.ids[i - 1]! > id) i--;
    if (this.ids[i - 1] !== id) this.ids.splice(i, 0, id);
  }

  /** A page of history at once: one merge, not a walk over the whole list per message (10,000 loaded). */
  insertAll(add: number[]): void {
    const fresh = [...new Set(add)].sort((a, b) => a - b);
    if (fresh.length === 0) return;
    const out: number[] = [];
    let i = 0;
    let j = 0;
    while (i < this.ids.length || j < fresh.length) {
      const a = this.ids[i];
      const b = fresh[j];
      if (b === undefined || (a !== undefined && a < b)) out.push(this.ids[i++]!);
      else if (a === undefined || b < a) out.push(fresh[j++]!);
      else {
        out.push(a);
        i++;
        j++;
      }
    }
    this.ids = out;
  }

  remove(ids: Set<number>): void {
    if (this.ids.some((id) => ids.has(id))) this.ids = this.ids.filter((id) => !ids.has(id));
  }
}

export type Typist = { userId: number; until: number };
/** Where someone types: `stream:<id>:<topic>` or `pm:<ids of everyone but the viewer>`. */
export const typingKey = {
  stream: (streamId: number, topic: string) => `stream:${streamId}:${topic.toLowerCase()}`,
  pm: (ids: number[]) => `pm:${[...new Set(ids)].sort((a, b) => a - b).join(',')}`,
};
const TYPING_EXPIRY_MS = 15_000;

export class Store {
  state: State | null = null;
  messages = new Map<number, Message>();
  list = new MessageList([]);
  outbox: Message[] = [];
  typing = new Map<string, Typist[]>();
  /** Topics that appeared by live message since the page loaded, newest first, per stream. */
  liveTopics = new Map<number, string[]>();
  conn: Conn = 'connecting';
  /** Set when the server says this page has no session. */
  signedOut = false;
  version = 0;
  /** Bumped by register and each applied batch of events: caches derived from register's state key on it. */
  epoch = 0;
  /** The message j/k, r, * and Enter act on. */
  selected: number | null = null;
  /** The message being edited in place. */
  editing: number | null = null;
  /** A view in which messages are not marked read as they are seen (after "Mark as unread from here"), until it is left. */
  noAutoRead: MessageList | null = null;
  /** A one-line notice (a failed action), cleared by the next. */
  flash: string | null = null;
  /** The outbox's hook: a message event may confirm a local echo. */
  onConfirm?: (id: number, localId: string | undefined) => void;
  private listeners = new Set<() => void>();
  private frame = 0;

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** One notification per frame however many events arrived. */
  changed(): void {
    this.version++;
    if (this.frame) return;
    const run = () => {
      this.frame = 0;
      for (const fn of this.listeners) fn();
    };
    this.frame = typeof requestAnimationFrame === 'function' && document.visibilityState === 'visible' ? requestAnimationFrame(run) : (setTimeout(run, 0) as unknown as number);
  }

  setRegister(reg: Register): void {
    this.state = { reg, me: reg.user_id, usersById: new Map(), usersByEmail: new Map(), streamsById: new Map() };
    this.epoch++;
    this.derive();
    this.changed();
  }

  /** The lookup tables, rebuilt after events that change people or streams. */
  private derive(): void {
    const s = this.state!;
    s.usersById = new Map();
    s.usersByEmail = new Map();
    for (const u of [...(s.reg.realm_users ?? []), ...(s.reg.realm_non_active_users ?? []), ...(s.reg.cross_realm_bots ?? [])]) {
      s.usersById.set(u.user_id, u);
      s.usersByEmail.set(u.email.toLowerCase(), u);
    }
    s.streamsById = new Map();
    for (const st of [...(s.reg.streams ?? []), ...(s.reg.never_subscribed ?? []), ...(s.reg.unsubscribed ?? []), ...(s.reg.subscriptions ?? [])]) {
      s.streamsById.set(st.stream_id, st);
    }
  }

  /** Messages from GET /messages into the store (a fetched copy replaces an older one). */
  addMessages(msgs: Message[]): void {
    for (const m of msgs) this.messages.set(m.id, m);
  }

  /**
   * Events change register's state and the held messages through the server's own reducer
   * (src/events/apply.ts); what follows here is the views' part, derived from what changed.
   * Typing is the one event no state holds: the app shows and expires it itself.
   */
  apply(events: ClientEvent[]): void {
    const s = this.state;
    if (!s) return;
    let derive = false;
    for (const e of events) {
      applyEvent(s.reg, e, s.me);
      this.follow(applyToHeldMessages(this.messages, s.reg, e));
      if (e.type === 'typing') this.onTyping(e);
      derive ||= LOOKUP_SOURCES.has(e.type);
    }
    if (derive) this.derive();
    this.epoch++;
    this.changed();
  }

  /** The open view, the outbox, live topics and typing indicators follow the held messages. */
  private follow(c: HeldChanges): void {
    const s = this.state!;
    if (c.added) this.onMessage(c.added.message, c.added.localId);
    this.list.remove(new Set(c.removed));
    // A topic moved out of the view leaves it, as in Zulip.
    const gone = c.moved.filter((id) => {
      const m = this.messages.get(id);
      return m !== undefined && matches(this.list.narrow, m, s) === false;
    });
    this.list.remove(new Set(gone));
  }

  private onMessage(m: Message, localId: string | undefined): void {
    const s = this.state!;
    if (localId !== undefined) this.outbox = this.outbox.filter((o) => o.local_id !== localId);
    this.onConfirm?.(m.id, localId);
    if (m.type === 'stream' && m.stream_id !== undefined) {
      const topics = this.liveTopics.get(m.stream_id) ?? [];
      if (!topics.some((t) => t.toLowerCase() === m.subject.toLowerCase())) this.liveTopics.set(m.stream_id, [m.subject, ...topics]);
    }
    // A view whose newest end is loaded grows with live messages; one mid-history does not.
    if (this.list.foundNewest && matches(this.list.narrow, m, s) === true) this.list.insert(m.id);
    // The sender stopped typing: their message is here.
    for (const [key, typists] of this.typing) {
      const left = typists.filter((t) => t.userId !== m.sender_id);
      if (left.length !== typists.length) (left.length ? this.typing.set(key, left) : this.typing.delete(key));
    }
  }

  private onTyping(e: TypingEvent): void {
    const s = this.state!;
    if (e.sender.user_id === s.me) return;
    const key = e.message_type === 'stream'
      ? typingKey.stream(e.stream_id, e.topic)
      : typingKey.pm([...e.recipients.map((r) => r.user_id), e.sender.user_id].filter((id) => id !== s.me));
    const others = (this.typing.get(key) ?? []).filter((t) => t.userId !== e.sender.user_id);
    if (e.op === 'start') {
      others.push({ userId: e.sender.user_id, until: Date.now() + TYPING_EXPIRY_MS });
      setTimeout(() => this.expireTyping(), TYPING_EXPIRY_MS + 50);
    }
    if (others.length) this.typing.set(key, others);
    else this.typing.delete(key);
  }

  private expireTyping(): void {
    const now = Date.now();
    for (const [key, typists] of this.typing) {
      const left = typists.filter((t) => t.until > now);
      if (left.length !== typists.length) (left.length ? this.typing.set(key, left) : this.typing.delete(key));
    }
    this.changed();
  }
}

export const store = new Store();
