import type { AppContext } from '../context.js';
import type { RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { notificationBot } from '../reads/system-bots.js';
import { streamInRealm } from '../reads/streams.js';
import { realmSettings } from '../lib/realm-settings.js';
import { INTERNAL_CLIENT } from '../lib/system-bots.js';
import { sendMessage } from './message-send.js';
import { silentMention } from './message-move-notices.js';

/** What a committed subscription request leaves for Notification Bot to say. */
export interface SubscribeOutcome {
  realm: RealmRow;
  acting: UserRow;
  created: StreamRow[];
  subscribed: Array<{ user: UserRow; stream: StreamRow }>;
  announce: boolean;
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Zulip's you_were_just_subscribed_message. */
function subscribedYouText(acting: UserRow, names: string[]): string {
  const who = `@**${acting.full_name}|${acting.id}**`;
  if (names.length === 1) return `${who} subscribed you to the stream #**${names[0]}**.`;
  return `${who} subscribed you to the following streams:\n\n${names.map((n) => `* #**${n}**\n`).join('')}`;
}

/**
 * Notification Bot's messages after POST /users/me/subscriptions, as Zulip writes them: a
 * private note to each human someone else subscribed to streams that already existed,
 * and, with `announce`, the new streams in the organization's notifications stream.
 */
export async function sendSubscriptionNotices(ctx: AppContext, o: SubscribeOutcome): Promise<void> {
  const created = new Set(o.created.map((s) => s.id));
  const perUser = new Map<number, { user: UserRow; names: string[] }>();
  for (const { user, stream } of o.subscribed) {
    if (user.id === o.acting.id || user.is_bot === 1 || created.has(stream.id)) continue;
    const entry = perUser.get(user.id) ?? { user, names: [] };
    entry.names.push(stream.name);
    perUser.set(user.id, entry);
  }
  const announceTo = o.announce && o.created.length > 0 ? realmSettings(o.realm.settings).notifications_stream_id : -1;
  const target = announceTo > 0 ? await streamInRealm(ctx.store.db, o.realm.id, announceTo) : undefined;
  if (perUser.size === 0 && !target) return;
  const bot = await notificationBot(ctx.store.db, o.realm.id);
  for (const { user, names } of perUser.values()) {
    await sendMessage(ctx, o.realm, bot, {
      to: { kind: 'private', ids: [user.id] }, content: subscribedYouText(o.acting, names.sort(byName)), client: INTERNAL_CLIENT, internal: true,
    });
  }
  if (target && target.deactivated === 0) {
    const list = o.created.map((s) => `#**${s.name}**`).join(', ');
    const content = o.created.length > 1 ? `${silentMention(o.acting)} created the following streams: ${list}.` : `${silentMention(o.acting)} created a new stream ${list}.`;
    await sendMessage(ctx, o.realm, bot, { to: { kind: 'stream', id: target.id }, topic: 'new streams', content, client: INTERNAL_CLIENT, internal: true });
  }
}
