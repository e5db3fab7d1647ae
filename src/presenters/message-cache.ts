import type { AppContext } from '../context.js';
import type { ParleyEvent } from '../events/bus.js';
import type { Q } from '../store/rows.js';
import { loadWireMessages, type MessagePresentOpts } from './message.js';
import { flagsFromMask } from '../lib/message-flags.js';

/** About 64 MB of JSON (a few tens of thousands of messages); the oldest stored goes first. */
const MAX_CHARS = 64 * 1024 * 1024;

const PER_MESSAGE = new Set(['update_message', 'reaction', 'delete_message', 'submessage']);
// Linkifiers make topic_links.
const EVERYTHING = new Set(['realm_user', 'realm_bot', 'stream', 'realm', 'realm_linkifiers', 'realm_filters']);

/**
 * Serialised messages for reads. Presenting and serialising 100 messages cost more than
 * finding them, and a message's wire form is the same for every reader but for its
 * `flags`; so each message is kept as JSON without `flags`, per apply_markdown and
 * client_gravatar variant, and a read splices each reader's flags in.
 *
 * What a message looks like changes only through events every node hears on the bus:
 * edits, moves, reactions and deletions name their messages; a changed user (name,
 * email, avatar), stream (name) or organization can touch any message, so those empty
 * the cache. A read that began before such an event never stores what it loaded.
 */
export class MessageJsonCache {
  private entries = new Map<number, Array<string | undefined>>();
  private chars = 0;
  /** Bumped by every invalidation: loads that straddle one are not kept. */
  private epoch = 0;

  observe(event: ParleyEvent): void {
    if (EVERYTHING.has(event.type)) {
      // New users and streams change no existing message.
      if ((event.type === 'stream' || event.type === 'realm_user' || event.type === 'realm_bot') && event.op === 'add') return;
      if (event.type === 'stream' && event.op === 'create') return;
      this.epoch += 1;
      this.entries.clear();
      this.chars = 0;
    } else if (PER_MESSAGE.has(event.type)) {
      this.epoch += 1;
      const ids = [event.message_id, ...(Array.isArray(event.message_ids) ? event.message_ids : [])];
      for (const id of ids) if (typeof id === 'number') this.evict(id);
    }
  }

  /** The JSON of each id (without flags), in order; ids that no longer exist are skipped. */
  async load(q: Q, ids: number[], opts: MessagePresentOpts): Promise<Array<{ id: number; json: string }>> {
    const variant = (opts.applyMarkdown ? 2 : 0) + (opts.clientGravatar ? 1 : 0);
    const found = new Map<number, string>();
    const missing: number[] = [];
    for (const id of ids) {
      const json = this.entries.get(id)?.[variant];
      if (json !== undefined) found.set(id, json);
      else missing.push(id);
    }
    if (missing.length > 0) {
      const epoch = this.epoch;
      const loaded = await loadWireMessages(q, missing.map((id) => ({ id })), opts);
      const keep = epoch === this.epoch;
      for (const m of loaded) {
        const json = JSON.stringify(m);
        found.set(m.id, json);
        if (keep) this.store(m.id, variant, json);
      }
    }
    const out: Array<{ id: number; json: string }> = [];
    for (const id of ids) {
      const json = found.get(id);
      if (json !== undefined) out.push({ id, json });
    }
    return out;
  }

  /** Entries held, and their size in characters (for tests and the budget). */
  size(): { entries: number; chars: number } {
    return { entries: this.entries.size, chars: this.chars };
  }

  private evict(id: number): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    for (const json of entry) this.chars -= json?.length ?? 0;
    this.entries.delete(id);
  }

  private store(id: number, variant: number, json: string): void {
    let entry = this.entries.get(id);
    if (!entry) {
      entry = [];
      this.entries.set(id, entry);
    }
    this.chars += json.length - (entry[variant]?.length ?? 0);
    entry[variant] = json;
    // Oldest inserted first out: recent messages are the ones read again.
    while (this.chars > MAX_CHARS && this.entries.size > 1) this.evict(this.entries.keys().next().value!);
  }
}

const caches = new WeakMap<AppContext, MessageJsonCache>();

export function installMessageCache(ctx: AppContext): void {
  const cache = new MessageJsonCache();
  caches.set(ctx, cache);
  ctx.bus.subscribe((e) => cache.observe(e.event));
}

export function messageCacheOf(ctx: AppContext): MessageJsonCache {
  const cache = caches.get(ctx);
  if (!cache) throw new Error('message cache not installed');
  return cache;
}

const flagJsonByMask = new Map<number | null, string>();

function flagsJson(mask: number | null): string {
  let json = flagJsonByMask.get(mask);
  if (json === undefined) {
    json = JSON.stringify(flagsFromMask(mask));
    flagJsonByMask.set(mask, json);
  }
  return json;
}

/** A GET /messages answer from cached messages, each with this reader's flags spliced in. */
export function messagesAnswer(meta: Record<string, unknown>, messages: Array<{ id: number; json: string }>, flags: Map<number, number | null>): string {
  let out = `${JSON.stringify({ result: 'success', msg: '', ...meta }).slice(0, -1)},"messages":[`;
  for (let i = 0; i < messages.length; i++) {
    const { id, json } = messages[i]!;
    out += `${i > 0 ? ',' : ''}${json.slice(0, -1)},"flags":${flagsJson(flags.get(id) ?? null)}}`;
  }
  return `${out}]}`;
}
