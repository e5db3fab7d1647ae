import type { Kysely } from 'kysely';
/** Migrations branch on the engine's name: schema differences are theirs to make. */
export type Dialect = 'sqlite' | 'postgres';
import * as m001 from './001-initial.js';
import * as m006 from './006-presence.js';
import * as m007 from './007-user-message-clustered.js';
import * as m008 from './008-subscription-stream-users.js';
import * as m009 from './009-user-message-by-message.js';
import * as m010 from './010-message-fts-external.js';
import * as m011 from './011-alert-word-realm.js';
import * as m012 from './012-cache-epoch.js';
import * as m014 from './014-system-bots.js';
import * as m015 from './015-drafts.js';
import * as m016 from './016-user-status.js';
import * as m017 from './017-muted-users.js';
import * as m018 from './018-email-changes.js';
import * as m019 from './019-welcome-bot.js';
import * as m020 from './020-user-groups.js';
import * as m021 from './021-custom-profile-fields.js';
import * as m022 from './022-attachments.js';
import * as m023 from './023-realm-emoji.js';
import * as m024 from './024-linkifiers.js';
import * as m025 from './025-bot-services.js';
import * as m026 from './026-bot-storage.js';
import * as m027 from './027-users-api-key.js';
import * as m029 from './029-sessions.js';
import * as m033 from './033-invites.js';
import * as m034 from './034-presence-update-id.js';
import * as m035 from './035-user-topics.js';
import * as m036 from './036-push-devices.js';
import * as m037 from './037-user-group-subgroups.js';
import * as m040 from './040-system-groups.js';
import * as m042 from './042-linkifier-templates.js';
import * as m043 from './043-settings-renamed.js';
import * as m044 from './044-flags.js';
import * as m045 from './045-scheduled-messages.js';
import * as m046 from './046-stream-creator.js';
import * as m047 from './047-delivery-email-index.js';
import * as m048 from './048-anonymous-group-settings.js';
import * as m050 from './050-attachment-dimensions.js';
import * as m053 from './053-user-group-settings.js';
import * as m054 from './054-stream-group-settings.js';
import * as m057 from './057-misc-371.js';
import * as m060 from './060-user-special-permissions.js';
import * as m061 from './061-linkifier-pattern-hash.js';
import * as m062 from './062-missed-message-notifications.js';
import * as m063 from './063-push-bouncer.js';
import * as m064 from './064-digest-sent.js';
import * as m066 from './066-push-realm-status.js';
import * as m068 from './068-avatar-key.js';
import * as m069 from './069-sso-tokens.js';
import * as m070 from './070-job-lease.js';
import * as m072 from './072-message-archive.js';
import * as m073 from './073-realm-playgrounds.js';
import * as m074 from './074-soft-deactivation.js';
import * as m075 from './075-message-expiry-walk.js';
import * as m076 from './076-idle-read-through.js';
import * as m077 from './077-idle-mark.js';

/**
 * What a migration runs against: the database of its day, not today's schema type (DB in
 * ../schema.ts), as Kysely advises, so that a landed migration never has to change.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: untyped, frozen in time (see above)
export type MigrationDb = Kysely<any>;

export interface Migration {
  name: string;
  up(db: MigrationDb, dialect: Dialect): Promise<void>;
}

/** Append only: a migration, once landed, is never edited. */
export const migrations: Migration[] = [
  { name: '001-initial', up: m001.up },
  { name: '006-presence', up: m006.up },
  { name: '007-user-message-clustered', up: m007.up },
  { name: '008-subscription-stream-users', up: m008.up },
  { name: '009-user-message-by-message', up: m009.up },
  { name: '010-message-fts-external', up: m010.up },
  { name: '011-alert-word-realm', up: m011.up },
  { name: '012-cache-epoch', up: m012.up },
  { name: '014-system-bots', up: m014.up },
  { name: '015-drafts', up: m015.up },
  { name: '016-user-status', up: m016.up },
  { name: '017-muted-users', up: m017.up },
  { name: '018-email-changes', up: m018.up },
  { name: '019-welcome-bot', up: m019.up },
  { name: '020-user-groups', up: m020.up },
  { name: '021-custom-profile-fields', up: m021.up },
  { name: '022-attachments', up: m022.up },
  { name: '023-realm-emoji', up: m023.up },
  { name: '024-linkifiers', up: m024.up },
  { name: '025-bot-services', up: m025.up },
  { name: '026-bot-storage', up: m026.up },
  { name: '027-users-api-key', up: m027.up },
  { name: '029-sessions', up: m029.up },
  { name: '033-invites', up: m033.up },
  { name: '034-presence-update-id', up: m034.up },
  { name: '035-user-topics', up: m035.up },
  { name: '036-push-devices', up: m036.up },
  { name: '037-user-group-subgroups', up: m037.up },
  { name: '040-system-groups', up: m040.up },
  { name: '042-linkifier-templates', up: m042.up },
  { name: '043-settings-renamed', up: m043.up },
  { name: '044-flags', up: m044.up },
  { name: '045-scheduled-messages', up: m045.up },
  { name: '046-stream-creator', up: m046.up },
  { name: '047-delivery-email-index', up: m047.up },
  { name: '048-anonymous-group-settings', up: m048.up },
  { name: '050-attachment-dimensions', up: m050.up },
  { name: '053-user-group-settings', up: m053.up },
  { name: '054-stream-group-settings', up: m054.up },
  { name: '057-misc-371', up: m057.up },
  { name: '060-user-special-permissions', up: m060.up },
  { name: '061-linkifier-pattern-hash', up: m061.up },
  { name: '062-missed-message-notifications', up: m062.up },
  { name: '063-push-bouncer', up: m063.up },
  { name: '064-digest-sent', up: m064.up },
  { name: '066-push-realm-status', up: m066.up },
  { name: '068-avatar-key', up: m068.up },
  { name: '069-sso-tokens', up: m069.up },
  { name: '070-job-lease', up: m070.up },
  { name: '072-message-archive', up: m072.up },
  { name: '073-realm-playgrounds', up: m073.up },
  { name: '074-soft-deactivation', up: m074.up },
  { name: '075-message-expiry-walk', up: m075.up },
  { name: '076-idle-read-through', up: m076.up },
  { name: '077-idle-mark', up: m077.up },
];
