import type { Q, StreamRow, UserRow } from '../store/rows.js';
import { streams } from '../store/repos/streams.js';
import { subscriptions } from '../store/repos/subscriptions.js';
import { userTopics } from '../store/repos/user-topics.js';
import { fitsIdColumn } from '../lib/ids.js';
import { VisibilityPolicy } from '../lib/visibility-policy.js';
import { canSeeStream } from './stream.js';

/**
 * The stream in which `user` may drop a topic's policy, or undefined (the caller says
 * Zulip's error). As Zulip's access_stream_to_remove_visibility_policy_by_id, no access
 * is needed to drop a policy one holds (it outlives access); but a stream the user cannot
 * see and holds no policy in answers as a missing one, so that nobody learns it exists.
 */
export async function streamToDropTopicPolicy(q: Q, user: UserRow, streamId: number, topic: string): Promise<StreamRow | undefined> {
  const stream = fitsIdColumn(streamId) ? await streams.findInRealm(q, user.realm_id, streamId) : undefined;
  if (!stream) return undefined;
  if (canSeeStream(user, stream, (await subscriptions.findActive(q, user.id, stream.id)) ?? null)) return stream;
  return (await userTopics.policyOf(q, user.id, stream.id, topic)) === VisibilityPolicy.INHERIT ? undefined : stream;
}
