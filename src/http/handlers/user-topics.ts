import { NoAnswer, route, type Route } from '../route.js';
import { Int, Str } from '../../schemas/params.js';
import { MAX_TOPIC_LENGTH } from '../../lib/limits.js';
import { transact } from '../../actions/transaction.js';
import { accessStreamById } from '../../access/stream.js';
import { streamToDropTopicPolicy } from '../../access/user-topic.js';
import { doSetUserTopicPolicy } from '../../actions/user-topics.js';
import { VISIBILITY_POLICIES, VisibilityPolicy } from '../../lib/visibility-policy.js';
import { generalChatToEmpty } from '../../lib/empty-topic.js';
import { badRequest, invalidStreamId } from '../../errors.js';

export const userTopicRoutes: Route[] = [
  route({
    method: 'POST', path: '/user_topics', auth: 'user', summary: "Update a topic's personal preferences (mute, unmute, follow)",
    params: {
      stream_id: Int(),
      topic: Str({ maxLength: MAX_TOPIC_LENGTH }),
      visibility_policy: Int({ description: '0 none, 1 muted, 2 unmuted, 3 followed' }),
    },
    answer: NoAnswer,
    handler: async (r) => {
      const { stream_id: streamId, visibility_policy: policy } = r.args;
      // Level 334: the empty topic's display name names it.
      const topic = generalChatToEmpty(r.args.topic, r.ctx.config.featureLevel);
      if (!VISIBILITY_POLICIES.includes(policy)) throw badRequest('Invalid visibility_policy');
      await transact(r.ctx, async (tx) => {
        if (policy === VisibilityPolicy.INHERIT) {
          // Dropping a policy needs no access to the stream (see streamToDropTopicPolicy).
          if (!(await streamToDropTopicPolicy(tx.db, r.user, streamId, topic))) throw invalidStreamId();
        } else {
          await accessStreamById(tx.db, r.user, streamId);
        }
        await doSetUserTopicPolicy(tx, r.user, streamId, topic, policy);
      });
      return {};
    },
  }),
];
