import type { AppContext } from '../context.js';
import { softDeactivation } from '../store/repos/soft-deactivation.js';
import type { RealmRow, UserRow } from '../store/rows.js';
import { realms } from '../store/repos/realms.js';
import { digests } from '../store/repos/digests.js';
import { realmSettings } from '../lib/realm-settings.js';
import { userSettings } from '../lib/user-settings.js';
import { realmUri } from '../lib/realm-host.js';
import { nowSeconds } from '../lib/time.js';
import { serialRounds } from '../lib/serial-rounds.js';
import { DIGEST_CUTOFF_DAYS, enoughTraffic, getDigestContext } from './digest-context.js';
import { digestHtml, digestSubject, digestText } from './digest-templates.js';
import { noreplyAddress } from '../mail/mailer.js';

/** Zulip runs its digest job daily; hourly here, so that a server started late in the day still sends the day's. */
const EVERY_MS = 60 * 60 * 1000;
/** A node that claimed a user and died frees them after this; a live one sends long before. */
const LEASE_SECS = 10 * 60;
const DAY = 86400;
/** A user whose digest had nothing to tell is looked at again after this: the next weekday, not the next hour. */
const EMPTY_RECHECK_SECS = 20 * 3600;

export interface DigestRun {
  /** One organization only. */
  realm?: RealmRow;
  /**
   * One user only, sent now whatever their recent activity and last digest (the operator
   * asked for it); their own and their organization's settings still decide.
   */
  user?: UserRow;
  /**
   * Send whatever the organization's digest_weekday, and look again at users whose digest
   * was found empty earlier that day (the CLI); the hourly job keeps to the weekday and looks
   * at each user once on it.
   */
  anyWeekday?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** Checked between users: true ends the run early (shutdown); the rest wait for the next round. */
  stopping?: () => boolean;
}

export interface DigestResult {
  considered: number;
  sent: number;
}

/** Zulip's weekday(): 0 Monday to 6 Sunday, on the server's clock (UTC). */
export const weekdayOf = (now: number): number => (new Date(now * 1000).getUTCDay() + 6) % 7;

/** The organizations whose digests the run covers: active, with digests on, on their weekday unless told otherwise. */
async function dueRealms(ctx: AppContext, now: number, run: DigestRun): Promise<RealmRow[]> {
  const all = run.realm ? [run.realm] : await realms.list(ctx.store.db);
  return all.filter((realm) => {
    const s = realmSettings(realm.settings);
    return realm.deactivated === 0 && s.digest_emails_enabled && (run.anyWeekday || s.digest_weekday === weekdayOf(now));
  });
}

/**
 * Zulip's enqueue_emails and bulk_handle_digest_email in one: every due organization's
 * users with digests on who have been away since the cutoff (five days) and were sent none
 * since, each claimed before their digest is built so that another node or a restart does
 * not send it twice, and sent only when there is something to tell.
 */
export async function sendDigests(ctx: AppContext, now: number, run: DigestRun = {}): Promise<DigestResult> {
  const cutoff = now - DIGEST_CUTOFF_DAYS * DAY;
  const work: Array<{ realm: RealmRow; user: UserRow }> = [];
  for (const realm of await dueRealms(ctx, now, run)) {
    const candidates = run.user ? (run.user.realm_id === realm.id ? [run.user] : []) : await digests.listAwayHumans(ctx.store.db, realm.id, cutoff, cutoff, run.anyWeekday ? now : now - EMPTY_RECHECK_SECS);
    for (const user of candidates) {
      if (user.is_active === 1 && user.is_bot === 0 && userSettings(user.settings).enable_digest_emails) work.push({ realm, user });
    }
  }
  let sent = 0;
  for (const [i, { realm, user }] of work.entries()) {
    if (run.stopping?.()) break;
    if (await sendOne(ctx, realm, user, now, cutoff, run.user ? now : cutoff)) sent++;
    run.onProgress?.(i + 1, work.length);
  }
  return { considered: work.length, sent };
}

async function sendOne(ctx: AppContext, realm: RealmRow, user: UserRow, now: number, cutoff: number, sentAfter: number): Promise<boolean> {
  const db = ctx.store.db;
  if (!(await digests.claim(db, user.id, now, now + LEASE_SECS, sentAfter))) return false;
  try {
    // The digest reads what they received: a soft-deactivated person's rows are made first.
    if (user.long_term_idle === 1) await softDeactivation.catchUp(db, [user.id]);
    const context = await getDigestContext(db, realm, user, cutoff, { realmUri: realmUri(ctx.config, realm), featureLevel: ctx.config.featureLevel });
    if (!enoughTraffic(context)) {
      await digests.markEmpty(db, user.id, now);
      return false;
    }
    await ctx.mail.send({
      // Zulip's digest comes from "<service> Digest" at the no-reply address.
      to: user.delivery_email, from: `Parley Digest <${noreplyAddress(ctx.config.mailFrom)}>`, subject: digestSubject(context), text: digestText(context), html: digestHtml(context),
      headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
    });
    await digests.markSent(db, user.id, now);
    ctx.log.info({ user: user.id }, 'digest email sent');
    return true;
  } catch (err) {
    // Unsent: free the claim so that the next round (this node's or another's) tries again.
    await digests.release(db, user.id).catch(() => undefined);
    ctx.log.warn({ err, user: user.id }, 'digest email failed; the next round retries');
    return false;
  }
}

export interface Digests {
  /** Sends the digests due at `now` (the clock by default; tests pass a later time); answers how many were sent. */
  sendDue(now?: number): Promise<number>;
}

/** Every node looks at start and hourly; the claims leave each user's digest to one of them. */
export function startDigests(ctx: AppContext): Digests {
  let stopped = false;
  const rounds = serialRounds(async (now: number) => (await sendDigests(ctx, now, { stopping: () => stopped })).sent);
  const sendDue = (now = nowSeconds()): Promise<number> => rounds.run(now);
  const tick = () => {
    if (!rounds.busy()) sendDue().catch((err: unknown) => ctx.log.error({ err }, 'digest round failed'));
  };
  const timer = setInterval(tick, EVERY_MS);
  timer.unref();
  const first = setTimeout(tick, 0);
  first.unref();
  ctx.shutdownHooks.push(async () => {
    stopped = true;
    clearInterval(timer);
    clearTimeout(first);
    await rounds.settled();
  });
  ctx.digests = { sendDue };
  return { sendDue };
}
