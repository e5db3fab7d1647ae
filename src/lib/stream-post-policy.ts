/** Zulip's stream_post_policy values: who may post to a stream. */
export const STREAM_POST_POLICY = { EVERYONE: 1, ADMINS: 2, RESTRICT_NEW_MEMBERS: 3, MODERATORS: 4 } as const;
