import type { Q } from '../rows.js';
import { RecipientType } from '../../lib/recipient-type.js';

/**
 * What `parley export` reads of one organization, all on the snapshot store.snapshot gives.
 * Tables that grow with the organization's history (messages, reactions, attachments) are
 * read a page at a time by ascending id; the rest are the organization's size.
 */
export const exportReads = {
  users: (q: Q, realmId: number) => q.selectFrom('users').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),

  streams: (q: Q, realmId: number) => q.selectFrom('stream').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),

  /** Stream subscriptions of the organization's streams. */
  subscriptions: (q: Q, realmId: number) =>
    q.selectFrom('subscription').innerJoin('stream', 'stream.id', 'subscription.stream_id').selectAll('subscription')
      .where('stream.realm_id', '=', realmId).orderBy('subscription.id').execute(),

  /** The recipients of the organization's users and streams. */
  userAndStreamRecipients: async (q: Q, realmId: number) => [
    ...await q.selectFrom('recipient').innerJoin('users', 'users.id', 'recipient.type_id').select(['recipient.id', 'recipient.type', 'recipient.type_id'])
      .where('recipient.type', '=', RecipientType.PERSONAL).where('users.realm_id', '=', realmId).execute(),
    ...await q.selectFrom('recipient').innerJoin('stream', 'stream.id', 'recipient.type_id').select(['recipient.id', 'recipient.type', 'recipient.type_id'])
      .where('recipient.type', '=', RecipientType.STREAM).where('stream.realm_id', '=', realmId).execute(),
  ],

  /** Group conversations (huddles are not keyed by organization: those its messages go to). */
  huddles: (q: Q, realmId: number) =>
    q.selectFrom('huddle').innerJoin('recipient', 'recipient.id', 'huddle.recipient_id')
      .select(['huddle.id', 'huddle.huddle_hash', 'huddle.recipient_id'])
      .where('recipient.type', '=', RecipientType.HUDDLE)
      .where('huddle.recipient_id', 'in', (eb) => eb.selectFrom('message').select('recipient_id').where('realm_id', '=', realmId).where('stream_id', 'is', null))
      .orderBy('huddle.id').execute(),

  defaultStreams: (q: Q, realmId: number) => q.selectFrom('default_stream').selectAll().where('realm_id', '=', realmId).orderBy('stream_id').execute(),
  realmEmoji: (q: Q, realmId: number) => q.selectFrom('realm_emoji').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),
  linkifiers: (q: Q, realmId: number) => q.selectFrom('realm_filter').selectAll().where('realm_id', '=', realmId).orderBy('position').orderBy('id').execute(),
  profileFields: (q: Q, realmId: number) => q.selectFrom('custom_profile_field').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),
  profileValues: (q: Q, realmId: number) =>
    q.selectFrom('custom_profile_field_value').innerJoin('custom_profile_field', 'custom_profile_field.id', 'custom_profile_field_value.field_id')
      .selectAll('custom_profile_field_value').where('custom_profile_field.realm_id', '=', realmId)
      .orderBy('custom_profile_field_value.field_id').orderBy('custom_profile_field_value.user_id').execute(),
  userGroups: (q: Q, realmId: number) => q.selectFrom('user_group').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),
  groupMembers: (q: Q, realmId: number) =>
    q.selectFrom('user_group_member').innerJoin('user_group', 'user_group.id', 'user_group_member.group_id').selectAll('user_group_member')
      .where('user_group.realm_id', '=', realmId).orderBy('group_id').orderBy('user_id').execute(),
  groupSubgroups: (q: Q, realmId: number) =>
    q.selectFrom('user_group_subgroup').innerJoin('user_group', 'user_group.id', 'user_group_subgroup.supergroup_id').selectAll('user_group_subgroup')
      .where('user_group.realm_id', '=', realmId).orderBy('supergroup_id').orderBy('subgroup_id').execute(),
  alertWords: (q: Q, realmId: number) => q.selectFrom('alert_word').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),
  userTopics: (q: Q, realmId: number) =>
    q.selectFrom('user_topic').innerJoin('users', 'users.id', 'user_topic.user_id').selectAll('user_topic')
      .where('users.realm_id', '=', realmId).orderBy('user_topic.user_id').orderBy('user_topic.stream_id').orderBy('user_topic.topic_lower').execute(),
  mutedUsers: (q: Q, realmId: number) => q.selectFrom('muted_user').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),
  userStatuses: (q: Q, realmId: number) => q.selectFrom('user_status').selectAll().where('realm_id', '=', realmId).orderBy('user_id').execute(),
  drafts: (q: Q, realmId: number) =>
    q.selectFrom('draft').innerJoin('users', 'users.id', 'draft.user_id').selectAll('draft').where('users.realm_id', '=', realmId).orderBy('draft.id').execute(),
  botServices: (q: Q, realmId: number) =>
    q.selectFrom('bot_service').innerJoin('users', 'users.id', 'bot_service.bot_id').selectAll('bot_service').where('users.realm_id', '=', realmId).orderBy('bot_service.id').execute(),
  botStorage: (q: Q, realmId: number) =>
    q.selectFrom('bot_storage').innerJoin('users', 'users.id', 'bot_storage.user_id').selectAll('bot_storage').where('users.realm_id', '=', realmId).orderBy('bot_storage.id').execute(),
  savedSnippets: (q: Q, realmId: number) =>
    q.selectFrom('saved_snippet').innerJoin('users', 'users.id', 'saved_snippet.user_id').selectAll('saved_snippet').where('users.realm_id', '=', realmId).orderBy('saved_snippet.id').execute(),
  presences: (q: Q, realmId: number) => q.selectFrom('user_presence').selectAll().where('realm_id', '=', realmId).orderBy('user_id').execute(),
  scheduledMessages: (q: Q, realmId: number) => q.selectFrom('scheduled_message').selectAll().where('realm_id', '=', realmId).orderBy('id').execute(),

  messageCount: async (q: Q, realmId: number): Promise<number> =>
    Number((await q.selectFrom('message').select((eb) => eb.fn.countAll().as('n')).where('realm_id', '=', realmId).executeTakeFirstOrThrow()).n),

  /** The next page of the organization's messages after `afterId`. */
  messagePage: (q: Q, realmId: number, afterId: number, limit: number) =>
    q.selectFrom('message').selectAll().where('realm_id', '=', realmId).where('id', '>', afterId).orderBy('id').limit(limit).execute(),

  userMessagesOf: (q: Q, messageIds: number[]) =>
    messageIds.length === 0 ? Promise.resolve([])
      : q.selectFrom('user_message').selectAll().where('message_id', 'in', messageIds).orderBy('message_id').orderBy('user_id').execute(),

  reactionPage: (q: Q, realmId: number, afterId: number, limit: number) =>
    q.selectFrom('reaction').innerJoin('message', 'message.id', 'reaction.message_id').selectAll('reaction')
      .where('message.realm_id', '=', realmId).where('reaction.id', '>', afterId).orderBy('reaction.id').limit(limit).execute(),

  attachmentPage: (q: Q, realmId: number, afterId: number, limit: number) =>
    q.selectFrom('attachment').selectAll().where('realm_id', '=', realmId).where('id', '>', afterId).orderBy('id').limit(limit).execute(),

  attachmentMessages: (q: Q, attachmentIds: number[]) =>
    attachmentIds.length === 0 ? Promise.resolve([])
      : q.selectFrom('attachment_message').selectAll().where('attachment_id', 'in', attachmentIds).orderBy('attachment_id').orderBy('message_id').execute(),
};
