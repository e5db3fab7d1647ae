import type { IdleNotifyRows } from '../store/repos/soft-deactivation.js';
import { userSettings } from '../lib/user-settings.js';

/**
 * An organization's soft-deactivated people as each send weighs them: who may go without a
 * recipient row for an ordinary stream message. Zulip keeps a row for an idle person the
 * message would notify (their stream's email or push setting, a topic they follow); so does
 * this, a little more often: a muted stream or topic is not looked at.
 */
export class IdleRecipients {
  private readonly idle = new Set<number>();
  /** Idle people any stream message may notify (their own defaults for streams are on). */
  private readonly allStreams = new Set<number>();
  private readonly streams = new Set<string>();
  private readonly topics = new Set<string>();

  constructor(rows: IdleNotifyRows) {
    const followNotified = new Set<number>();
    for (const u of rows.users) {
      this.idle.add(u.id);
      const s = userSettings(u.settings);
      if (s.enable_stream_email_notifications || s.enable_stream_push_notifications) this.allStreams.add(u.id);
      if (s.enable_followed_topic_email_notifications || s.enable_followed_topic_push_notifications) followNotified.add(u.id);
    }
    for (const r of rows.streams) this.streams.add(`${r.user_id} ${r.stream_id}`);
    for (const r of rows.followed) if (followNotified.has(r.user_id)) this.topics.add(`${r.user_id} ${r.stream_id} ${r.topic_lower}`);
  }

  get size(): number {
    return this.idle.size;
  }

  isIdle(userId: number): boolean {
    return this.idle.has(userId);
  }

  /** True when this person is idle and an unflagged message to this stream and topic needs no row for them. */
  skips(userId: number, streamId: number, topicLower: string): boolean {
    if (!this.idle.has(userId) || this.allStreams.has(userId)) return false;
    return !this.streams.has(`${userId} ${streamId}`) && !this.topics.has(`${userId} ${streamId} ${topicLower}`);
  }
}
