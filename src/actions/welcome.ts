import type { AppContext } from '../context.js';
import type { Tx } from './transaction.js';
import type { RealmRow, StreamRow, UserRow } from '../store/rows.js';
import { realms } from '../store/repos/realms.js';
import { realmSettings } from '../lib/realm-settings.js';
import { INTERNAL_CLIENT } from '../lib/system-bots.js';
import { welcomeBot } from '../reads/system-bots.js';
import { sendMessage } from './message-send.js';
import { doCreateStream } from './stream-create.js';
import { doAddDefaultStream } from './default-streams.js';
import { streams } from '../store/repos/streams.js';
import { messages } from '../store/repos/messages.js';
import { userMessages } from '../store/repos/user-messages.js';
import { FLAG_BITS } from '../lib/message-flags.js';
import { nowSeconds } from '../lib/time.js';

/**
 * What a new person finds in their feed, after Zulip 5's onboarding: the Welcome Bot's
 * private greeting (send_initial_pms) and, in a new organization, a #general stream that
 * everyone joins with an introductory message in it (do_create_realm and
 * send_initial_realm_messages). The wording is Parley's own.
 *
 * Zulip has no switch for the greeting; Parley reads the organization's
 * `send_welcome_emails` ("introduce the product to new users"), which any Zulip client's
 * settings page can turn off, and sends no welcome emails of its own.
 */
export const STARTER_STREAM = 'general';
export const STARTER_TOPIC = 'welcome';

function welcomeText(realm: RealmRow): string {
  return [
    `Hello, and welcome to **${realm.name.replace(/[*_`\\]/g, '')}**! :wave:`,
    '',
    'I am Welcome Bot, and this is a private conversation between the two of us. A few pointers to get going:',
    '',
    '* Conversations happen in **streams**, and every stream message carries a **topic**, so several discussions can run side by side without getting tangled.',
    '* You have already joined the streams this organization recommends to newcomers; browse the others and subscribe to what interests you.',
    '* Your name, picture, time zone and notification preferences are in your personal settings.',
    '',
    'Now go and say hello to your colleagues!',
  ].join('\n');
}

const INTRO = [
  'This is the first stream of your organization: everyone who joins is subscribed to it.',
  '',
  'Messages in a stream are grouped by **topic**. This one is in the topic "welcome"; start a new topic whenever you start a new subject, and replies stay together with the message they answer.',
  '',
  'Administrators can create more streams, choose which ones newcomers join, and adjust the organization\'s policies in its settings.',
].join('\n');

/** Part of creating a human user: the greeting follows the commit, if the organization wants it. */
export function queueWelcomeMessage(tx: Tx, realm: RealmRow, user: UserRow): void {
  if (user.is_bot === 1 || !realmSettings(realm.settings).send_welcome_emails) return;
  tx.later((ctx) => sendWelcome(ctx, realm.id, user.id));
}

async function sendWelcome(ctx: AppContext, realmId: number, userId: number): Promise<void> {
  const realm = await realms.findById(ctx.store.db, realmId);
  if (!realm) return;
  const bot = await welcomeBot(ctx.store.db, realmId);
  await sendMessage(ctx, realm, bot, { to: { kind: 'private', ids: [userId] }, content: welcomeText(realm), client: INTERNAL_CLIENT, internal: true });
}

/**
 * A new organization's starter stream: #general, a default stream and the notifications
 * stream, with the Welcome Bot's introduction posted once the organization is committed.
 */
export async function doCreateStarterStream(tx: Tx, realm: RealmRow): Promise<StreamRow> {
  const stream = await doCreateStream(tx, realm, { name: STARTER_STREAM, description: 'Everyone joins this stream. Say hello!' });
  await doAddDefaultStream(tx, stream);
  const own = JSON.parse(realm.settings || '{}') as Record<string, unknown>;
  await realms.update(tx.db, realm.id, { settings: JSON.stringify({ ...own, notifications_stream_id: stream.id }) });
  tx.later(async (ctx) => {
    const current = await realms.findById(ctx.store.db, realm.id);
    if (!current) return;
    const bot = await welcomeBot(ctx.store.db, realm.id);
    await sendMessage(ctx, current, bot, { to: { kind: 'stream', id: stream.id }, topic: STARTER_TOPIC, content: INTRO, client: INTERNAL_CLIENT, internal: true });
  });
  return stream;
}

// Zulip's ONBOARDING_TOTAL_MESSAGES and ONBOARDING_UNREAD_MESSAGES, over the last week.
const HISTORY_MESSAGES = 1000;
const HISTORY_UNREAD = 20;
const HISTORY_SECONDS = 7 * 24 * 60 * 60;

/**
 * Zulip's add_new_user_history: a new human holds the last week's messages of the public
 * default streams they just joined (at most 1000, the newest 20 unread), so their
 * "all messages" view starts with the organization's recent conversation.
 */
export async function doAddNewUserHistory(tx: Tx, realm: RealmRow, user: UserRow): Promise<void> {
  if (user.is_bot === 1) return;
  const publicDefaults = (await streams.listDefaults(tx.db, realm.id)).filter((s) => s.invite_only === 0).map((s) => s.id);
  const ids = await messages.listRecentIdsInStreams(tx.db, publicDefaults, nowSeconds() - HISTORY_SECONDS, HISTORY_MESSAGES);
  if (ids.length === 0) return;
  const rows = ids.map((id, i) => ({ message_id: id, flags: i < HISTORY_UNREAD ? 0 : FLAG_BITS.read })).reverse();
  await userMessages.insertMissing(tx.db, user.id, rows);
}
