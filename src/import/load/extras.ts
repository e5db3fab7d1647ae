/**
 * The rest of an organization a Zulip export carries: user groups, custom profile fields,
 * custom emoji, linkifiers, and each person's alert words, topic and user mutes, status and
 * drafts. Each goes through the action that makes it from the API, so that an export is held
 * to the same checks as a request; a value the API would refuse fails the import, naming it.
 */
import { Readable } from 'node:stream';
import type { Tx } from '../../actions/transaction.js';
import { doCreateUserGroup } from '../../actions/user-groups.js';
import { doCreateProfileField, doUpdateProfileData } from '../../actions/profile-fields.js';
import { doAddLinkifier } from '../../actions/linkifiers.js';
import { doAddAlertWords } from '../../actions/alert-words.js';
import { doSetUserTopicPolicy } from '../../actions/user-topics.js';
import { doCreateDrafts, type DraftInput } from '../../actions/drafts.js';
import { checkEmojiName, MAX_EMOJI_FILE_SIZE_MIB } from '../../actions/realm-emoji.js';
import { users } from '../../store/repos/users.js';
import { userGroups } from '../../store/repos/user-groups.js';
import { profileFields } from '../../store/repos/profile-fields.js';
import { mutedUsers } from '../../store/repos/muted-users.js';
import { userStatuses } from '../../store/repos/user-status.js';
import { realmEmoji } from '../../store/repos/realm-emoji.js';
import { processEmoji } from '../../uploads/emoji-image.js';
import { emojiStillKey, emojiStorageKey } from '../../presenters/realm-emoji.js';
import { Role } from '../../lib/roles.js';
import { userSettings } from '../../lib/user-settings.js';
import { MAX_STATUS_TEXT_LENGTH } from '../../lib/limits.js';
import type { UserRow } from '../../store/rows.js';
import { ImportError, type Row } from '../source.js';
import { field } from './ids.js';
import { tableOf, type LoadState } from './state.js';
import { userGroupFromZulip } from '../zulip-columns.js';
import { anonymousGroups, mapIdOf } from './groups-map.js';

/** Who the import acts as where an action needs someone: the first owner, else the first administrator, else anyone. */
async function actingUser(tx: Tx, s: LoadState): Promise<UserRow> {
  const people = await users.listByRealm(tx.db, s.realm.id);
  const acting = people.find((u) => u.role === Role.OWNER && u.is_active === 1) ?? people.find((u) => u.role <= Role.ADMINISTRATOR && u.is_active === 1) ?? people[0];
  if (!acting) throw new ImportError('the export has no users');
  return acting;
}

export async function loadGroups(tx: Tx, s: LoadState): Promise<void> {
  const system = await userGroups.systemGroupsByName(tx.db, s.realm.id);
  // Zulip 9 split groups into zerver_usergroup (every group, anonymous ones too) and
  // zerver_namedusergroup (names); earlier exports have the names on zerver_usergroup.
  const named = tableOf(s, 'zerver_namedusergroup');
  const groups: Row[] = named.length > 0
    ? named.map((g) => ({ ...g, id: g.usergroup_ptr ?? g.id }))
    : tableOf(s, 'zerver_usergroup').filter((g) => typeof g.name === 'string');
  const acting = await actingUser(tx, s);
  const members = new Map<number, number[]>();
  for (const m of tableOf(s, 'zerver_usergroupmembership')) {
    if (!s.users.has(m.user_profile)) continue;
    const list = members.get(Number(m.user_group)) ?? [];
    list.push(s.users.get(m.user_profile, 'a group membership'));
    members.set(Number(m.user_group), list);
  }
  s.progress.phase('user groups', groups.length);
  for (const g of groups) {
    const where = `user group ${JSON.stringify(g.id)}`;
    const name = field.str(g, 'name', where);
    const sourceId = field.int(g, 'id', where);
    const sys = system.get(name);
    if (sys) {
      // The role groups follow each imported user's role (people.ts), not the export's lists.
      s.groups.set(sourceId, sys.id);
    } else if (field.bool(g, 'is_system_group')) {
      continue;
    } else {
      const active = new Set((await users.listByIds(tx.db, members.get(sourceId) ?? [])).filter((u) => u.is_active === 1).map((u) => u.id));
      const group = await doCreateUserGroup(tx, s.realm, {
        name, description: field.str(g, 'description', where, ''), memberIds: [...active], acting,
      });
      if (field.bool(g, 'deactivated')) await userGroups.update(tx.db, group.id, { deactivated: 1 });
      s.groups.set(sourceId, group.id);
    }
    s.progress.tick();
  }
  // Their settings may name any group: set once every group has its id.
  for (const g of groups) {
    if (!s.groups.has(g.id) || system.has(String(g.name))) continue;
    const mapped = userGroupFromZulip(g, mapIdOf(s), anonymousGroups(s));
    const patch = Object.fromEntries(Object.entries({
      can_mention_group_id: mapped.can_mention_group_id, can_mention_group_anon: mapped.can_mention_group_anon,
      can_manage_group: mapped.can_manage_group, can_join_group: mapped.can_join_group, can_add_members_group: mapped.can_add_members_group,
      can_leave_group: mapped.can_leave_group, can_remove_members_group: mapped.can_remove_members_group,
      creator_id: mapped.creator_id, date_created: mapped.date_created,
    }).filter(([, v]) => v !== null && v !== undefined));
    if (Object.keys(patch).length > 0) await userGroups.update(tx.db, s.groups.get(g.id, 'a user group'), patch);
  }
  for (const edge of tableOf(s, 'zerver_groupgroupmembership')) {
    if (!s.groups.has(edge.supergroup) || !s.groups.has(edge.subgroup)) continue;
    const sup = s.groups.get(edge.supergroup, 'a subgroup');
    const sub = s.groups.get(edge.subgroup, 'a subgroup');
    const supRow = await userGroups.findInRealm(tx.db, s.realm.id, sup);
    // System groups' own chain was made with the organization.
    if (supRow && supRow.is_system_group === 0) await userGroups.insertSubgroups(tx.db, sup, [sub]);
  }
  s.progress.done();
}

export async function loadProfileFields(tx: Tx, s: LoadState): Promise<void> {
  const fields = [...tableOf(s, 'zerver_customprofilefield')].sort((a, b) => Number(a.order ?? 0) - Number(b.order ?? 0));
  for (const f of fields) {
    const where = `custom profile field ${JSON.stringify(f.id)}`;
    let data: unknown = {};
    if (typeof f.field_data === 'string' && f.field_data !== '') {
      try {
        data = JSON.parse(f.field_data);
      } catch {
        throw new ImportError(`${where} has field_data that is not JSON`);
      }
    }
    const id = await doCreateProfileField(tx, s.realm, {
      name: field.str(f, 'name', where), hint: field.str(f, 'hint', where, ''), type: field.int(f, 'field_type', where),
      data: (typeof data === 'object' && data !== null ? data : {}) as never,
      displayInSummary: field.bool(f, 'display_in_profile_summary'), required: field.bool(f, 'required'),
      editableByUser: field.bool(f, 'editable_by_user', true),
    }, tx.featureLevel);
    // The export's order, as Zulip's importer keeps it (a new field's order is its id otherwise).
    if (Number.isSafeInteger(f.order)) await profileFields.update(tx.db, id, { order: f.order as number });
    s.fields.set(field.int(f, 'id', where), id);
  }
  const byUser = new Map<number, Array<{ id: number; value: unknown }>>();
  for (const v of tableOf(s, 'zerver_customprofilefieldvalue')) {
    if (!s.users.has(v.user_profile) || !s.fields.has(v.field)) continue;
    const userId = s.users.get(v.user_profile, 'a profile value');
    let value: unknown = v.value;
    // User-picker values are JSON lists of the export's user ids.
    if (typeof value === 'string' && value.startsWith('[')) {
      try {
        const ids = JSON.parse(value) as unknown;
        if (Array.isArray(ids)) value = ids.filter((i) => s.users.has(i)).map((i) => s.users.get(i, 'a profile value'));
      } catch {
        // Not a list after all: kept as text.
      }
    }
    const list = byUser.get(userId) ?? [];
    list.push({ id: s.fields.get(v.field, 'a profile value'), value });
    byUser.set(userId, list);
  }
  for (const [userId, items] of byUser) await doUpdateProfileData(tx, (await users.findById(tx.db, userId))!, items);
}

/** Custom emoji with their images (emoji/records.json), made small as an upload here is. */
export async function loadEmoji(tx: Tx, s: LoadState): Promise<void> {
  const records = s.source.records.emoji;
  const acting = await actingUser(tx, s);
  for (const e of tableOf(s, 'zerver_realmemoji')) {
    const where = `custom emoji ${JSON.stringify(e.id)}`;
    const name = checkEmojiName(field.str(e, 'name', where));
    const fileName = field.str(e, 'file_name', where, '');
    const record = records.find((r) => r.file_name === fileName || r.path.split('/').pop() === fileName || r.s3_path?.split('/').pop() === fileName);
    if (!record) throw new ImportError(`${where}: emoji/records.json has no image ${fileName}`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of await s.source.openFile('emoji', record)) {
      size += (chunk as Buffer).length;
      if (size > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024) throw new ImportError(`${where}: its image is larger than ${MAX_EMOJI_FILE_SIZE_MIB} MiB`);
      chunks.push(chunk as Buffer);
    }
    const data = Buffer.concat(chunks);
    const image = await processEmoji(data);
    if (!image) {
      // One unreadable picture is no reason to refuse years of history: the emoji is left out
      // (reactions with it too), and the operator is told.
      s.ctx.log.warn({ emoji: name }, 'import: a custom emoji image is not an image Parley can read; left out');
      continue;
    }
    const author = s.users.has(e.author) ? s.users.get(e.author, where) : acting.id;
    const id = await realmEmoji.insert(tx.db, { realm_id: s.realm.id, name, author_id: author });
    const stored = `${id}${image.ext}`;
    const key = emojiStorageKey(s.realm.id, stored);
    for (const [k, body, type] of [[key, image.image, image.contentType], [`${key}.original`, data, 'application/octet-stream'],
      ...(image.still ? [[emojiStillKey(s.realm.id, stored), image.still, 'image/png']] : [])] as Array<[string, Buffer, string]>) {
      s.storedKeys.push(k);
      await s.ctx.storage.put(k, Readable.from([body]), { contentType: type });
    }
    await realmEmoji.update(tx.db, id, { file_name: stored, is_animated: image.animated ? 1 : 0, deactivated: field.bool(e, 'deactivated') ? 1 : 0 });
    s.emoji.set(field.int(e, 'id', where), id);
  }
}

export async function loadLinkifiers(tx: Tx, s: LoadState): Promise<void> {
  const rows = [...tableOf(s, 'zerver_realmfilter')].sort((a, b) => Number(a.order ?? a.id) - Number(b.order ?? b.id));
  for (const f of rows) {
    const where = `linkifier ${JSON.stringify(f.id)}`;
    const pattern = field.str(f, 'pattern', where);
    const template = typeof f.url_template === 'string' ? f.url_template : undefined;
    const format = typeof f.url_format_string === 'string' ? f.url_format_string : undefined;
    if (template === undefined && format === undefined) throw new ImportError(`${where} has no URL`);
    await doAddLinkifier(tx, s.realm, pattern, template !== undefined ? { template } : { format: format! });
  }
}

/** Each person's alert words, topic policies, muted users, status and drafts. */
export async function loadPersonal(tx: Tx, s: LoadState): Promise<void> {
  const words = new Map<number, string[]>();
  for (const w of tableOf(s, 'zerver_alertword')) {
    if (!s.users.has(w.user_profile) || typeof w.word !== 'string') continue;
    const id = s.users.get(w.user_profile, 'an alert word');
    words.set(id, [...(words.get(id) ?? []), w.word]);
  }
  for (const [id, list] of words) await doAddAlertWords(tx, (await users.findById(tx.db, id))!, list);

  // zerver_usertopic since Zulip 6; zerver_mutedtopic before (muted only).
  const topics: Row[] = tableOf(s, 'zerver_usertopic').length > 0 ? tableOf(s, 'zerver_usertopic') : tableOf(s, 'zerver_mutedtopic').map((t) => ({ ...t, visibility_policy: 1 }));
  for (const t of topics) {
    if (!s.users.has(t.user_profile) || !s.streams.has(t.stream) || typeof t.topic_name !== 'string' && typeof t.topic !== 'string') continue;
    const policy = typeof t.visibility_policy === 'number' && [1, 2, 3].includes(t.visibility_policy) ? t.visibility_policy : 1;
    const topic = String(t.topic_name ?? t.topic);
    await doSetUserTopicPolicy(tx, { id: s.users.get(t.user_profile, 'a topic'), realm_id: s.realm.id }, s.streams.get(t.stream, 'a topic'), topic, policy);
  }

  for (const m of tableOf(s, 'zerver_muteduser')) {
    if (!s.users.has(m.user_profile) || !s.users.has(m.muted_user)) continue;
    await mutedUsers.insert(tx.db, {
      user_id: s.users.get(m.user_profile, 'a muted user'), muted_user_id: s.users.get(m.muted_user, 'a muted user'),
      realm_id: s.realm.id, date_muted: field.time(m, 'date_muted', s.realm.date_created),
    });
  }

  for (const st of tableOf(s, 'zerver_userstatus')) {
    if (!s.users.has(st.user_profile)) continue;
    const text = typeof st.status_text === 'string' ? [...st.status_text.replace(/\p{Cc}/gu, ' ')].slice(0, MAX_STATUS_TEXT_LENGTH).join('') : '';
    const reactionType = ['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji'].includes(String(st.reaction_type)) ? String(st.reaction_type) : 'unicode_emoji';
    await userStatuses.upsert(tx.db, s.users.get(st.user_profile, 'a status'), s.realm.id, {
      status_text: text, emoji_name: typeof st.emoji_name === 'string' ? st.emoji_name : '',
      emoji_code: typeof st.emoji_code === 'string' ? st.emoji_code : '', reaction_type: reactionType,
    }, field.time(st, 'timestamp', s.realm.date_created));
  }

  const drafts = new Map<number, Row[]>();
  for (const d of tableOf(s, 'zerver_draft')) {
    if (!s.users.has(d.user_profile)) continue;
    const id = s.users.get(d.user_profile, 'a draft');
    drafts.set(id, [...(drafts.get(id) ?? []), d]);
  }
  for (const [userId, list] of drafts) {
    const user = (await users.findById(tx.db, userId))!;
    // Someone who turned draft synchronisation off has none kept here (the API would refuse them).
    if (!userSettings(user.settings).enable_drafts_synchronization) continue;
    const inputs = list.flatMap((d): DraftInput[] => {
      const r = s.recipients.get(Number(d.recipient));
      const topic = typeof d.topic === 'string' ? d.topic : '';
      const content = typeof d.content === 'string' ? d.content : '';
      const timestamp = field.time(d, 'last_edit_time', s.realm.date_created);
      if (!r) return [{ type: '', to: [], topic: '', content, timestamp }];
      if (r.streamId !== null) return [{ type: 'stream', to: [r.streamId], topic, content, timestamp }];
      const others = (r.members ?? []).filter((id) => id !== userId);
      return [{ type: 'private', to: others.length > 0 ? others : [userId], topic: '', content, timestamp }];
    });
    if (inputs.length > 0) await doCreateDrafts(tx, user, inputs);
  }
}
