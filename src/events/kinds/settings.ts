/** Events about settings (the organization's and the user's own) and the user's own things: drafts, alert words, uploads. */
import type { WireDraft } from '../../presenters/draft.js';
import type { WireRealmEmoji } from '../../presenters/realm-emoji.js';
import type { WireLinkifier } from '../../schemas/wire.js';
import type { WireRealmPlayground } from '../../presenters/realm-playground.js';

export interface UserSettingsUpdateEvent { type: 'user_settings'; op: 'update'; property: string; value: unknown }
/** The legacy form of a display setting change, for clients without user_settings_object. */
export interface UpdateDisplaySettingsEvent { type: 'update_display_settings'; user: string; setting_name: string; setting: unknown; language_name?: string }
/** The legacy form of a notification setting change, for clients without user_settings_object. */
export interface UpdateGlobalNotificationsEvent { type: 'update_global_notifications'; user: string; notification_name: string; setting: unknown }

/** Organization settings changed (Zulip's do_set_realm_property and its grouped siblings), to every active user. */
export interface RealmUpdateEvent { type: 'realm'; op: 'update'; property: string; value: unknown }
/**
 * Settings changed together (Zulip's realm/update_dict): `property: 'default'` for the realm group
 * settings (level 209 on), 'icon' for the organization icon (icon_url, icon_source).
 */
export interface RealmUpdateDictEvent { type: 'realm'; op: 'update_dict'; property: 'default' | 'icon'; data: Record<string, unknown> }
export type RealmEvent = RealmUpdateEvent | RealmUpdateDictEvent | RealmUserSettingsDefaultsUpdateEvent;
export interface RealmUserSettingsDefaultsUpdateEvent { type: 'realm_user_settings_defaults'; op: 'update'; property: string; value: unknown }

/** Published with both forms of each linkifier; each queue is given one (src/events/personalize.ts). */
export interface RealmLinkifiersEvent { type: 'realm_linkifiers'; realm_linkifiers: Array<{ pattern: string; url_format: string; url_template: string | null; id: number }> }
/** realm_linkifiers as a queue receives it: one form (src/events/personalize.ts). */
export interface ClientRealmLinkifiersEvent { type: 'realm_linkifiers'; realm_linkifiers: WireLinkifier[] }
/** The organization's whole list of code playgrounds (level 49), as register's `realm_playgrounds`. */
export interface RealmPlaygroundsEvent { type: 'realm_playgrounds'; realm_playgrounds: WireRealmPlayground[] }
/** The legacy form of the linkifiers: [pattern, url format, id]. */
export interface RealmFiltersEvent { type: 'realm_filters'; realm_filters: Array<[string, string, number]> }

/** The organization's whole custom-emoji dictionary, as register's `realm_emoji`. */
export interface RealmEmojiUpdateEvent { type: 'realm_emoji'; op: 'update'; realm_emoji: Record<string, WireRealmEmoji> }

/** The one-time notices the user has yet to see (level 233): always none in Parley. */
export interface OnboardingStepsEvent { type: 'onboarding_steps'; onboarding_steps: Array<{ type: string; name: string }> }

/** The set of pending invitations changed: administrators refetch GET /invites (Zulip 5's notify_invites_changed). */
export interface InvitesChangedEvent { type: 'invites_changed' }

export interface AlertWordsEvent { type: 'alert_words'; alert_words: string[] }

/** The owner's own drafts (Zulip's drafts events), to all of the owner's queues only. */
export interface DraftsAddEvent { type: 'drafts'; op: 'add'; drafts: WireDraft[] }
export interface DraftsUpdateEvent { type: 'drafts'; op: 'update'; draft: WireDraft }
export interface DraftsRemoveEvent { type: 'drafts'; op: 'remove'; draft_id: number }
export type DraftsEvent = DraftsAddEvent | DraftsUpdateEvent | DraftsRemoveEvent;

/** GET /attachments' element (Zulip 5's Attachment.to_dict; times in milliseconds). */
export interface WireAttachment {
  id: number; name: string; path_id: string; size: number; create_time: number;
  messages: Array<{ id: number; date_sent: number }>;
}

/** The owner's uploaded files changed (Zulip's notify_attachment_update); to the owner only. */
export interface AttachmentAddEvent { type: 'attachment'; op: 'add'; attachment: WireAttachment; upload_space_used: number }
export interface AttachmentUpdateEvent { type: 'attachment'; op: 'update'; attachment: WireAttachment; upload_space_used: number }
export interface AttachmentRemoveEvent { type: 'attachment'; op: 'remove'; attachment: { id: number }; upload_space_used: number }
export type AttachmentEvent = AttachmentAddEvent | AttachmentUpdateEvent | AttachmentRemoveEvent;
