import type { Route } from './route.js';
import { serverRoutes } from './handlers/server.js';
import { userRoutes } from './handlers/users.js';
import { presenceRoutes } from './handlers/presence.js';
import { renderRoutes } from './handlers/render.js';
import { messageSendRoutes } from './handlers/message-send.js';
import { alertWordRoutes } from './handlers/alert-words.js';
import { messageReadRoutes } from './handlers/message-read.js';
import { eventRoutes } from './handlers/events.js';
import { streamRoutes } from './handlers/streams.js';
import { subscriptionRoutes } from './handlers/subscriptions.js';
import { typingRoutes } from './handlers/typing.js';
import { messageEditRoutes } from './handlers/message-edit.js';
import { messageFlagRoutes } from './handlers/message-flags.js';
import { reactionRoutes } from './handlers/reactions.js';
import { messageDeleteRoutes } from './handlers/message-delete.js';
import { settingsRoutes } from './handlers/settings.js';
import { draftRoutes } from './handlers/drafts.js';
import { scheduledMessageRoutes } from './handlers/scheduled-messages.js';
import { savedSnippetRoutes } from './handlers/saved-snippets.js';
import { userStatusRoutes } from './handlers/user-status.js';
import { mutedUserRoutes } from './handlers/muted-users.js';
import { userGroupRoutes } from './handlers/user-groups.js';
import { profileFieldRoutes } from './handlers/profile-fields.js';
import { realmRoutes } from './handlers/realm.js';
import { linkifierRoutes } from './handlers/linkifiers.js';
import { uploadRoutes } from './handlers/uploads.js';
import { realmEmojiRoutes } from './handlers/realm-emoji.js';
import { avatarRoutes } from './handlers/avatars.js';
import { realmIconRoutes } from './handlers/realm-icon.js';
import { realmPlaygroundRoutes } from './handlers/realm-playgrounds.js';
import { botRoutes } from './handlers/bots.js';
import { webhookRoutes } from './handlers/webhooks.js';
import { botStorageRoutes } from './handlers/bot-storage.js';
import { sessionRoutes } from './handlers/session.js';
import { ssoRoutes } from './handlers/sso.js';
import { oidcRoutes } from './handlers/sso-oidc.js';
import { samlRoutes } from './handlers/sso-saml.js';
import { inviteRoutes } from './handlers/invites.js';
import { readReceiptRoutes } from './handlers/read-receipts.js';
import { userTopicRoutes } from './handlers/user-topics.js';
import { pushTokenRoutes } from './handlers/push-tokens.js';
import { onboardingStepRoutes } from './handlers/onboarding-steps.js';

/** Every API route, by resource. Each handler file owns its own table. */
export const routes: Route[] = [...serverRoutes, ...userRoutes, ...presenceRoutes, ...renderRoutes, ...messageSendRoutes, ...alertWordRoutes, ...messageReadRoutes,
  ...eventRoutes, ...streamRoutes, ...subscriptionRoutes, ...typingRoutes, ...messageEditRoutes, ...messageFlagRoutes, ...reactionRoutes, ...messageDeleteRoutes,
  ...settingsRoutes, ...draftRoutes, ...scheduledMessageRoutes, ...savedSnippetRoutes, ...userStatusRoutes, ...mutedUserRoutes, ...userGroupRoutes, ...profileFieldRoutes, ...realmRoutes,
  ...linkifierRoutes, ...uploadRoutes, ...realmEmojiRoutes, ...avatarRoutes, ...realmIconRoutes, ...realmPlaygroundRoutes, ...botRoutes, ...botStorageRoutes, ...webhookRoutes,
  ...sessionRoutes, ...ssoRoutes, ...oidcRoutes, ...samlRoutes, ...inviteRoutes, ...readReceiptRoutes, ...userTopicRoutes, ...pushTokenRoutes, ...onboardingStepRoutes];
