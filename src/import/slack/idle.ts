/**
 * Zulip's rule for who comes in from Slack soft-deactivated (import_util.long_term_idle_helper):
 * people who sent more than 10 messages, or any in the 60 days before the import, are active;
 * everyone else is long-term idle. An idle person gets a recipient row only for private
 * messages and mentions; the catch-up makes the rest later (read: loader's idle.ts), off the
 * import. In a workspace where most members never post, those rows were most of its work.
 */
import type { Row } from '../source.js';
import type { SlackPerson } from './users.js';

const RECENT_SECS = 60 * 86_400;
const ACTIVE_AFTER = 10;

/** Who sent what and when, noted while the days are scanned. */
export class SenderActivity {
  private readonly counts = new Map<string, number>();
  private readonly recent = new Set<string>();

  constructor(private readonly now: number) {}

  note(sender: string | undefined, ts: number): void {
    if (sender === undefined || this.recent.has(sender)) return;
    if (this.now - ts < RECENT_SECS) this.recent.add(sender);
    this.counts.set(sender, (this.counts.get(sender) ?? 0) + 1);
  }

  isActive(sender: string): boolean {
    return this.recent.has(sender) || (this.counts.get(sender) ?? 0) > ACTIVE_AFTER;
  }
}

/**
 * Marks the idle humans' zerver_userprofile rows (their rows complete up to no message) and
 * answers their ids. A person merged from several Slack accounts is active when any of them
 * is. Bots are never idle in Parley.
 */
export function markIdlePeople(activity: SenderActivity, people: Map<string, SlackPerson>, profiles: Row[]): Set<number> {
  const active = new Set<number>();
  for (const [slackId, person] of people) if (activity.isActive(slackId)) active.add(person.id);
  const idle = new Set<number>();
  for (const row of profiles) {
    if (row.is_bot === true || active.has(row.id as number)) continue;
    row.long_term_idle = true;
    row.last_active_message_id = 0;
    idle.add(row.id as number);
  }
  return idle;
}
