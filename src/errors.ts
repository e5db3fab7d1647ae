/**
 * The one error type of Parley, and every factory of it. Anything thrown that is not an
 * ApiError is a bug: the HTTP layer (http/app.ts, renderError) logs it and answers a
 * generic 500 without internals.
 */

/** The API's error codes (Zulip's ErrorCode names), exactly as on the wire. */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'REACTION_ALREADY_EXISTS'
  | 'REACTION_DOES_NOT_EXIST'
  | 'REQUEST_VARIABLE_MISSING'
  | 'UNAUTHORIZED'
  | 'UNAUTHORIZED_PRINCIPAL'
  | 'EXPECTATION_MISMATCH'
  | 'STREAM_DOES_NOT_EXIST'
  | 'INVALID_API_KEY'
  | 'USER_DEACTIVATED'
  | 'REALM_DEACTIVATED'
  | 'NONEXISTENT_SUBDOMAIN'
  | 'AUTHENTICATION_FAILED'
  | 'PASSWORD_AUTH_DISABLED'
  | 'RATE_LIMIT_HIT'
  | 'BAD_EVENT_QUEUE_ID'
  | 'BAD_NARROW'
  | 'INVALID_JSON'
  | 'UNSUPPORTED_WEBHOOK_EVENT_TYPE'
  | 'MISSING_HTTP_EVENT_HEADER'
  | 'REQUEST_TIMEOUT'
  | 'SERVER_NOT_READY'
  | 'INTERNAL_SERVER_ERROR'
  | 'CSRF_FAILED'
  | 'INVITATION_FAILED'
  | 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED'
  | 'STREAM_WILDCARD_MENTION_NOT_ALLOWED'
  | 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED'
  | 'INCOMPATIBLE_PARAMETERS'
  | 'CANNOT_DEACTIVATE_GROUP_IN_USE';

export class ApiError extends Error {
  constructor(
    public readonly code: ErrorCode,
    msg: string,
    public readonly httpStatus = 400,
    public readonly extra: Record<string, unknown> = {},
    /** false: rendered without `code`, as Zulip's bare json_error answers (the missing-draft error). */
    public readonly coded = true,
    /** Headers the answer carries besides the body (Zulip's extra_headers: Retry-After). */
    public readonly headers: Record<string, string> = {},
  ) {
    super(msg);
  }

  toJSON(): Record<string, unknown> {
    if (!this.coded) return { result: 'error', msg: this.message, ...this.extra };
    return { result: 'error', msg: this.message, code: this.code, ...this.extra };
  }
}

/** Zulip's JsonableError default: HTTP 400, code BAD_REQUEST. */
export const badRequest = (msg: string, extra: Record<string, unknown> = {}) =>
  new ApiError('BAD_REQUEST', msg, 400, extra);

export const missingArgument = (name: string) =>
  new ApiError('REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, 400, { var_name: name });

/** Zulip's IncompatibleParametersError. */
export const incompatibleParameters = (names: string[]) =>
  new ApiError('INCOMPATIBLE_PARAMETERS', `Unsupported parameter combination: ${names.join(', ')}`, 400, { parameters: names.join(', ') });

export const unauthorized = (msg: string, code: ErrorCode = 'UNAUTHORIZED') => new ApiError(code, msg, 401);

export const invalidApiKey = () => new ApiError('INVALID_API_KEY', 'Invalid API key', 401);
export const realmDeactivated = () => new ApiError('REALM_DEACTIVATED', 'This organization has been deactivated', 401);
export const userDeactivated = () => new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);

export const streamDoesNotExist = (stream: string) =>
  new ApiError('STREAM_DOES_NOT_EXIST', `Stream '${stream}' does not exist`, 400, { stream });

export const streamIdDoesNotExist = (id: number) =>
  new ApiError('STREAM_DOES_NOT_EXIST', `Stream with ID '${id}' does not exist`, 400, { stream_id: id });

export const noSuchUser = () => badRequest('No such user');

export const invalidMessage = () => badRequest('Invalid message(s)');
export const invalidStreamId = () => badRequest('Invalid stream id');
export const invalidStreamName = (name: string) => badRequest(`Invalid stream name '${name}'`);

export const insufficientPermission = () => badRequest('Insufficient permission');

// Zulip's OrganizationAdministratorRequired and friends: 400 with code UNAUTHORIZED_PRINCIPAL.
export const mustBeAdmin = () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator', 400);
export const mustBeOwner = () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner', 400);
/** Zulip 10's CannotAdministerChannelError (level 325: channel administrators). */
export const cannotAdministerChannel = () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'You do not have permission to administer this channel.', 400);
export const mustBeStreamAdmin = () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization or stream administrator', 400);

export const principalNotAuthorized = (principal: string | number) =>
  new ApiError('UNAUTHORIZED_PRINCIPAL', `User not authorized to execute queries on behalf of '${principal}'`, 403, { principal });

export const authenticationFailed = () => new ApiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401);

/** Zulip's RateLimitedError: seconds as a float, in the body and in Retry-After. */
/** Zulip's PasswordAuthDisabledError: only single sign-on is on (PARLEY_PASSWORD_AUTH=off). */
export const passwordAuthDisabled = () => new ApiError('PASSWORD_AUTH_DISABLED', 'Password authentication is disabled in this organization', 401);
/** The organization's LDAP directory did not answer: not the person's fault, so not their wrong password either. */
export const ldapUnavailable = () =>
  new ApiError('AUTHENTICATION_FAILED', "The organization's directory (LDAP) cannot check your password right now. Try again later, or tell an administrator.", 503);
/** Zulip's validate_otp_params. */
export const invalidOtp = () => badRequest('Invalid OTP');
export const bothOtps = () => badRequest("Can't use both mobile_flow_otp and desktop_flow_otp together.");
export const rateLimited = (retryAfterSecs: number) =>
  new ApiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429, { 'retry-after': retryAfterSecs }, true, { 'Retry-After': String(retryAfterSecs) });

export const badEventQueueId = (id: string) =>
  new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue id: ${id}`, 400, { queue_id: id });

export const badNarrow = (desc: string) => new ApiError('BAD_NARROW', `Invalid narrow operator: ${desc}`, 400);
export const badNarrowCombination = (desc: string) => new ApiError('BAD_NARROW', `Invalid narrow operator combination: ${desc}`, 400);
export const listTooLong = (name: string, limit: number) => badRequest(`${name} is too long (limit: ${limit} items)`);
export const tooManySubscriptions = (limit: number) => badRequest(`Too many subscriptions at once: streams × users is limited to ${limit}`);

// POST /messages/flags and the mark-as-read endpoints (Zulip's message_flags actions and views).
export const invalidFlag = (flag: string) => badRequest(`Invalid flag: '${flag}'`);
export const flagNotEditable = (flag: string) => badRequest(`Flag not editable: '${flag}'`);
export const invalidFlagOperation = (op: string) => badRequest(`Invalid message flag operation: '${op}'`);
export const noSuchTopic = (topic: string) => badRequest(`No such topic '${topic}'`);

export const nonexistentSubdomain = () => new ApiError('NONEXISTENT_SUBDOMAIN', 'Invalid subdomain', 404);

/** What every unexpected failure answers: nothing about its cause. */
export const INTERNAL_ERROR_BODY = { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' } as const;

// Reactions and emoji (Zulip's zerver/views/reactions.py and zerver/lib/emoji.py).
// Their own codes from feature level 193 (Zulip's ReactionExistsError, ReactionDoesNotExistError).
export const reactionExists = (featureLevel: number) =>
  new ApiError(featureLevel >= 193 ? 'REACTION_ALREADY_EXISTS' : 'BAD_REQUEST', 'Reaction already exists.');
export const reactionDoesNotExist = (featureLevel: number) =>
  new ApiError(featureLevel >= 193 ? 'REACTION_DOES_NOT_EXIST' : 'BAD_REQUEST', "Reaction doesn't exist.");
export const emojiDoesNotExist = (name: string) => badRequest(`Emoji '${name}' does not exist`);
/** DELETE /realm/emoji/{name} of an unknown emoji from feature level 190 (Zulip's ResourceNotFoundError). */
export const emojiNotFound = (name: string) => new ApiError('BAD_REQUEST', `Emoji '${name}' does not exist`, 404);
export const invalidEmojiName = () => badRequest('Invalid emoji name.');
export const invalidEmojiCode = () => badRequest('Invalid emoji code.');
export const invalidEmojiType = () => badRequest('Invalid emoji type.');
export const invalidCustomEmoji = () => badRequest('Invalid custom emoji.');
export const invalidCustomEmojiName = () => badRequest('Invalid custom emoji name.');
export const customEmojiDeactivated = () => badRequest('This custom emoji has been deactivated.');

// Message deletion (Zulip's validate_can_delete_message).
export const cannotDeleteMessage = () => badRequest("You don't have permission to delete this message");
export const deleteTimeLimitPassed = () => badRequest('The time limit for deleting this message has passed');
export const messageAlreadyDeleted = () => badRequest('Message already deleted');

// Drafts (Zulip's zerver/lib/drafts.py and views/drafts.py): a missing draft, or another
// user's, was answered by a bare json_error: HTTP 404 and no `code`.
export const draftDoesNotExist = () => new ApiError('BAD_REQUEST', 'Draft does not exist', 404, {}, false);
export const draftsSyncDisabled = () => badRequest('User has disabled synchronizing drafts.');
// User status (Zulip 5's update_user_status_backend) and muted users (zerver/views/muting.py).
export const botRequestsRefused = () => badRequest('This endpoint does not accept bot requests.');
export const statusNoNewValues = () => badRequest('Client did not pass any new values.');
export const statusTextTooLong = (limit: number) => badRequest(`status_text is too long (limit: ${limit} characters)`);
export const statusEmojiNameRequired = () => badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
export const cannotMuteSelf = () => badRequest('Cannot mute self');
export const userAlreadyMuted = () => badRequest('User already muted');
export const userNotMuted = () => badRequest('User is not muted');
// Push device tokens (zerver/views/push_notifications.py).
export const invalidTokenLength = () => badRequest('Empty or invalid length token');
export const invalidApnsToken = () => badRequest('Invalid APNS token');
export const tokenDoesNotExist = () => badRequest('Token does not exist');

// User groups (Zulip 5's zerver/views/user_groups.py and lib/user_groups.py).
export const notForGuests = () => badRequest('Not allowed for guest users');
export const invalidUserIdColon = (id: number) => badRequest(`Invalid user ID: ${id}`);
export const invalidUserGroup = () => badRequest('Invalid user group');
/** Zulip's PreviousSettingValueMismatchedError: a group setting's `old` (level 260) is not its value. */
export const previousSettingValueMismatched = () => new ApiError('EXPECTATION_MISMATCH', "'old' value does not match the expected value.", 400);
export const userGroupExists = (name: string) => badRequest(`User group '${name}' already exists.`);
export const userGroupNameTooLong = (limit: number) => badRequest(`User group name cannot exceed ${limit} characters.`);
/** Zulip's get_user_group_by_id_in_realm for a deactivated group (level 290). */
export const userGroupDeactivated = () => badRequest('User group is deactivated.');
/** Zulip's CannotDeactivateGroupInUseError (level 298): where the group is used. */
export const cannotDeactivateGroupInUse = (objections: unknown[]) =>
  new ApiError('CANNOT_DEACTIVATE_GROUP_IN_USE', 'Cannot deactivate user group in use.', 400, { objections });
export const noNewData = () => badRequest('No new data supplied');
export const groupNothingToDo = () => badRequest('Nothing to do. Specify at least one of "add" or "delete".');
export const alreadyGroupMember = (id: number) => badRequest(`User ${id} is already a member of this group`);
export const notGroupMember = (id: number) => badRequest(`There is no member '${id}' in this user group`);
export const invalidUserGroupId = (id: number) => badRequest(`Invalid user group ID: ${id}`);
export const alreadySubgroup = (id: number) => badRequest(`User group ${id} is already a subgroup of this group.`);
export const notSubgroup = (id: number) => badRequest(`User group ${id} is not a subgroup of this group.`);
export const subgroupCycle = (id: number) => badRequest(`User group ${id} is already a subgroup of one of the passed subgroups.`);

// Custom profile fields (Zulip 5's zerver/views/custom_profile_fields.py and validators).
export const fieldNotFound = (id: number) => badRequest(`Field id ${id} not found.`);
export const fieldLabelExists = () => badRequest('A field with that label already exists.');
export const fieldLabelBlank = () => badRequest('Label cannot be blank.');
export const invalidFieldType = () => badRequest('Invalid field type.');
export const invalidOrderMapping = () => badRequest('Invalid order mapping.');
export const defaultFieldNotUpdatable = () => badRequest('Default custom field cannot be updated.');
// Organization policies enforced when sending (Zulip's check_message).
export const privateMessagesDisabled = () => badRequest('Private messages are disabled in this organization.');
export const wildcardMentionNotAllowed = () => badRequest('You do not have permission to use wildcard mentions in this stream.');
// Level 229 (Zulip's StreamWildcardMentionNotAllowedError and TopicWildcardMentionNotAllowedError).
export const streamWildcardMentionNotAllowed = () =>
  new ApiError('STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use channel wildcard mentions in this channel.');
export const topicWildcardMentionNotAllowed = () =>
  new ApiError('TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use topic wildcard mentions in this topic.');
export const unableToRenderMessage = () => badRequest('Unable to render message');

// Linkifiers (Zulip 5's zerver/views/realm_linkifiers.py): a refused one answers the first
// validation message with every message by field in `errors`, as Django's ValidationError.
export const linkifierNotFound = () => badRequest('Linkifier not found.');
export const linkifierInvalid = (msg: string, errors: Record<string, string[]>) => badRequest(msg, { errors });

// File uploads (Zulip 5's zerver/views/upload.py and views/attachments.py).
export const uploadNoFile = () => badRequest('You must specify a file to upload');
export const uploadOneFileOnly = () => badRequest('You may only upload one file at a time');
export const uploadTooLarge = (mib: number) => badRequest(`Uploaded file is larger than the allowed limit of ${mib} MiB`);
export const invalidAttachment = () => badRequest('Invalid attachment');
/** GET /user_uploads/... outside /api/v1 without credentials: Zulip's json_unauthorized for a missing session. */
export const notLoggedIn = () => unauthorized('Not logged in: API authentication or user session required');

// Custom emoji (Zulip 5's zerver/views/realm_emoji.py and zerver/lib/emoji.py).
export const emojiNameMissing = () => badRequest('Emoji name is missing');
export const emojiNameInvalid = () => badRequest('Invalid characters in emoji name');
export const customEmojiExists = () => badRequest('A custom emoji with this name already exists.');
export const emojiOneFile = () => badRequest('You must upload exactly one file.');
export const emojiOverrideAdminsOnly = () => badRequest('Only administrators can override built-in emoji.');
export const emojiNotAuthor = () => badRequest('Must be an organization administrator or emoji author');
export const badImage = () => badRequest('Could not decode image; did you upload an image file?');
// Avatars (Zulip's set_avatar_backend, delete_avatar_backend and upload_avatar_image).
export const avatarOneFile = () => badRequest('You must upload exactly one avatar.');
export const iconOneFile = () => badRequest('You must upload exactly one icon.');
export const invalidPlayground = () => badRequest('Invalid playground');
export const playgroundInvalid = (msg: string, errors: Record<string, string[]>) => badRequest(msg, { errors });
export const avatarChangesDisabled = () => badRequest('Avatar changes are disabled in this organization.');
export const invalidImageFormat = () => badRequest('Invalid image format');

// Incoming webhooks (Zulip's zerver/decorator.py webhook_view, zerver/lib/webhooks/common.py,
// zerver/lib/exceptions.py, WildValue in zerver/lib/validator.py).
/** An incoming-webhook bot's key on the regular API; Zulip answers it through json_unauthorized. */
export const notForWebhookBots = () => unauthorized('This API is not available to incoming webhook bots.');
/**
 * Another account's key on a webhook URL. Zulip accepts any key there; Parley only a webhook
 * bot's (issue 21), with the wording Zulip once used for the opposite mismatch.
 */
export const webhookBotOnly = () => unauthorized('Account is not valid to post webhook messages');
/** No key at all: Zulip's REQ message, answered 401 as every credential-less request here. */
export const webhookKeyMissing = () => new ApiError('REQUEST_VARIABLE_MISSING', "Missing 'api_key' argument", 401, { var_name: 'api_key' });
export const malformedApiKey = () => new ApiError('INVALID_API_KEY', 'Malformed API key', 401);
export const malformedJson = () => new ApiError('INVALID_JSON', 'Malformed JSON', 400);
export const unsupportedWebhookEvent = (event: string, webhookName: string) =>
  new ApiError('UNSUPPORTED_WEBHOOK_EVENT_TYPE', `The '${event}' event isn't currently supported by the ${webhookName} webhook`, 400,
    { webhook_name: webhookName, event_type: event });
export const missingEventHeader = (header: string) =>
  new ApiError('MISSING_HTTP_EVENT_HEADER', `Missing the HTTP event header '${header}'`, 400, { header });
/** WildValue's wording: `payload['repository']['name'] is missing`. */
export const payloadKeyMissing = (varName: string) => badRequest(`${varName} is missing`);
export const payloadWrongType = (varName: string, what: string) => badRequest(`${varName} is not ${what}`);
export const unknownIntegration = () => new ApiError('BAD_REQUEST', 'Not Found', 404);
// Bots (Zulip's zerver/lib/users.py access_bot_by_id and views/users.py patch_bot_backend).
export const noSuchBot = () => badRequest('No such bot');
export const ownerNoSuchUser = () => badRequest('Failed to change owner, no such user');
export const ownerDeactivated = () => badRequest('Failed to change owner, user is deactivated');
export const ownerIsBot = () => badRequest("Failed to change owner, bots can't own other bots");
export const botNameInUse = () => badRequest('Name is already in use!');
export const invalidInterfaceType = () => badRequest('Invalid interface type');

// Bot storage (Zulip's zerver/lib/bot_storage.py StateError messages).
export const storageKeyMissing = () => badRequest('Key does not exist.');
export const storageLimitExceeded = (over: number, limit: number) =>
  badRequest(`Request exceeds storage limit by ${over} characters. The limit is ${limit} characters.`);
export const storageNullBytes = () => badRequest('Storage must not contain null bytes');
// Web sessions (Zulip's zerver/middleware.py csrf_failure: Django's reason in `reason`).
export const csrfFailed = (reason: string) => new ApiError('CSRF_FAILED', `CSRF error: ${reason}`, 403, { reason });

// Invitations (Zulip 5's zerver/views/invite.py and do_invite_users; InvitationError's data fields).
export const invitationFailed = (msg: string, errors: Array<[string, string, boolean]>, sentInvitations: boolean) =>
  new ApiError('INVITATION_FAILED', msg, 400, { errors, sent_invitations: sentInvitations, license_limit_reached: false });
export const noSuchInvitation = () => badRequest('No such invitation');
export const invalidInviteAs = () => badRequest('Must be invited as an valid type of user');
export const noInviteEmails = () => badRequest('You must specify at least one email address.');
export const noInviteStreams = () => badRequest('You must specify at least one stream for invitees to join.');
export const inviteStreamMissing = (id: number) => badRequest(`Stream does not exist with id: ${id}. No invites were sent.`);
export const multiuseStreamInvalid = (id: number) => badRequest(`Invalid stream ID ${id}. No invites were sent.`);
// Confirmation links (Zulip's confirmation/views.py render_confirmation_key_error).
export const confirmationLinkExpired = () => badRequest('The confirmation link has expired or been deactivated.');
export const confirmationLinkNotFound = () => new ApiError('BAD_REQUEST', "Whoops. We couldn't find your confirmation link in the system.", 404);
// Sign-up (Zulip's RegistrationForm).
export const passwordTooWeak = () => badRequest('The password is too weak.');

/**
 * Zulip's MessageMoveError (feature level 172): a `change_all` move reaching past the
 * mover's time limit. `first` is the oldest message they may move (null if none).
 */
export const moveMessagesTimeLimitExceeded = (first: number | null, total: number, allowed: number) =>
  new ApiError('MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
    `You only have permission to move the ${allowed}/${total} most recent messages in this topic.`, 400,
    { first_message_id_allowed_to_move: first, total_messages_in_topic: total, total_messages_allowed_to_move: allowed });
