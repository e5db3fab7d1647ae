/**
 * Applies events to a register state the way a client does. The event guard tests use it:
 * register, act, apply the events, register again, and the two states must be equal.
 */
import { addUnread, clearUnread, placeOfDetails, placeOfMessage, refileUnread, removeUnread, setUnreadMention } from './apply-unread.js';

type State = Record<string, any>;
type Ev = Record<string, any> & { type: string };

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function moveSub(state: State, from: string, to: string, streamId: number): Record<string, any> | undefined {
  const i = (state[from] as any[] | undefined)?.findIndex((s) => s.stream_id === streamId) ?? -1;
  if (i < 0) return undefined;
  const [s] = state[from].splice(i, 1);
  return s;
}

export function applyEvent(state: State, e: Ev, viewerId: number): void {
  switch (e.type) {
    case 'message': {
      if ('max_message_id' in state) state.max_message_id = Math.max(state.max_message_id, e.message.id);
      const flags = e.flags as string[];
      if (state.unread_msgs && !flags.includes('read')) {
        addUnread(state.unread_msgs, e.message.id, placeOfMessage(e.message, viewerId), flags.includes('mentioned') || flags.includes('wildcard_mentioned'));
      }
      return;
    }
    case 'realm_user': {
      if (!state.realm_users) return;
      if (e.op === 'add') {
        // Reactivation arrives as an add: the person leaves the deactivated list.
        state.realm_non_active_users = (state.realm_non_active_users ?? []).filter((u: any) => u.user_id !== e.person.user_id);
        state.realm_users.push(e.person);
      }
      if (e.op === 'remove') {
        const i = state.realm_users.findIndex((u: any) => u.user_id === e.person.user_id);
        if (i >= 0) state.realm_non_active_users.push({ ...state.realm_users.splice(i, 1)[0], is_active: false });
        // Register lists only active users' statuses.
        if (state.user_status) delete state.user_status[e.person.user_id];
      }
      if (e.op === 'update') {
        for (const list of [state.realm_users, state.realm_non_active_users]) {
          const u = list.find((x: any) => x.user_id === e.person.user_id);
          // A changed address arrives as `new_email`, as in Zulip.
          const { new_email: newEmail, custom_profile_field: field, ...fields } = e.person;
          if (u) Object.assign(u, fields, newEmail !== undefined ? { email: newEmail } : {});
          if (u?.profile_data && field) applyProfileValue(u.profile_data, field);
        }
      }
      return;
    }
    case 'realm_bot': {
      if (!state.realm_bots) return;
      if (e.op === 'add') state.realm_bots.push(e.bot);
      if (e.op === 'update') Object.assign(state.realm_bots.find((b: any) => b.user_id === e.bot.user_id) ?? {}, e.bot);
      return;
    }
    case 'subscription': {
      if (!state.subscriptions) return;
      if (e.op === 'add') {
        for (const sub of e.subscriptions) {
          moveSub(state, 'unsubscribed', 'subscriptions', sub.stream_id);
          moveSub(state, 'never_subscribed', 'subscriptions', sub.stream_id);
          state.subscriptions.push(sub);
        }
        state.subscriptions.sort(byName);
      }
      if (e.op === 'remove') {
        for (const ref of e.subscriptions) {
          const s = moveSub(state, 'subscriptions', 'unsubscribed', ref.stream_id);
          if (s) {
            if (s.subscribers) s.subscribers = s.subscribers.filter((id: number) => id !== viewerId);
            state.unsubscribed.push(s);
          }
        }
        state.unsubscribed.sort(byName);
      }
      if (e.op === 'update') {
        const s = state.subscriptions.find((x: any) => x.stream_id === e.stream_id);
        if (s) {
          s[e.property] = e.value;
          if (e.property === 'in_home_view') s.is_muted = !e.value;
          if (e.property === 'is_muted') s.in_home_view = !e.value;
        }
      }
      if (e.op === 'peer_add' || e.op === 'peer_remove') {
        for (const list of ['subscriptions', 'unsubscribed', 'never_subscribed']) {
          for (const s of state[list] ?? []) {
            if (!e.stream_ids.includes(s.stream_id) || !s.subscribers) continue;
            const set = new Set<number>(s.subscribers);
            for (const id of e.user_ids) (e.op === 'peer_add' ? set.add(id) : set.delete(id));
            s.subscribers = [...set].sort((a, b) => a - b);
          }
        }
      }
      return;
    }
    case 'stream': {
      if (e.op === 'create') {
        if (state.streams) {
          state.streams.push(...e.streams);
          state.streams.sort(byName);
        }
        if (state.never_subscribed) {
          const known = new Set([...state.subscriptions, ...state.unsubscribed, ...state.never_subscribed].map((s: any) => s.stream_id));
          for (const s of e.streams) if (!known.has(s.stream_id)) state.never_subscribed.push({ ...s, stream_weekly_traffic: null, subscribers: [] });
          state.never_subscribed.sort(byName);
        }
      }
      if (e.op === 'delete') {
        const gone = new Set(e.streams.map((s: any) => s.stream_id));
        // Topics muted in an archived stream go with it.
        const goneNames = new Set(e.streams.map((s: any) => s.name));
        if (state.muted_topics) state.muted_topics = state.muted_topics.filter((m: any[]) => !goneNames.has(m[0]));
        for (const list of ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed', 'realm_default_streams']) {
          if (state[list]) state[list] = state[list].filter((s: any) => !gone.has(s.stream_id));
        }
        // The server marks an archived stream's messages read and says nothing; clients drop them.
        const u = state.unread_msgs;
        if (u) {
          const dropped = new Set<number>(u.streams.filter((s: any) => gone.has(s.stream_id)).flatMap((s: any) => s.unread_message_ids));
          u.streams = u.streams.filter((s: any) => !gone.has(s.stream_id));
          u.mentions = u.mentions.filter((id: number) => !dropped.has(id));
          u.count -= dropped.size;
        }
      }
      if (e.op === 'update') {
        for (const list of ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed', 'realm_default_streams']) {
          for (const s of state[list] ?? []) {
            if (s.stream_id !== e.stream_id) continue;
            // Only subscriptions carry an email address.
            if (e.property === 'email_address' && !('email_address' in s)) continue;
            s[e.property] = e.value;
            if (e.property === 'description' && 'rendered_description' in e) s.rendered_description = e.rendered_description;
            if (e.property === 'invite_only') {
              if ('history_public_to_subscribers' in e) s.history_public_to_subscribers = e.history_public_to_subscribers;
              if ('is_web_public' in e) s.is_web_public = e.is_web_public;
            }
            if (e.property === 'stream_post_policy') s.is_announcement_only = e.value === 2;
          }
          if (e.property === 'name' && state[list]) state[list].sort(byName);
        }
      }
      return;
    }
    case 'default_streams':
      if ('realm_default_streams' in state) state.realm_default_streams = e.default_streams;
      return;
    case 'muted_topics':
      if ('muted_topics' in state) state.muted_topics = e.muted_topics;
      return;
    case 'alert_words':
      if ('alert_words' in state) state.alert_words = e.alert_words;
      return;
    case 'presence':
      if (state.presences) {
        const [info] = Object.values(e.presence as Record<string, { client: string; status: string; timestamp: number }>);
        state.presences[e.email] = { ...e.presence, aggregated: { client: info!.client, status: info!.status, timestamp: info!.timestamp } };
      }
      return;
    case 'user_settings':
      if (state.user_settings) state.user_settings[e.property] = e.value;
      // The server drops its copies when synchronisation is turned off; so does a client.
      if (e.property === 'enable_drafts_synchronization' && e.value === false && state.drafts) state.drafts = [];
      return;
    case 'update_display_settings':
      if (e.setting_name in state) state[e.setting_name] = e.setting;
      return;
    case 'update_global_notifications':
      if (e.notification_name in state) state[e.notification_name] = e.setting;
      return;
    case 'update_message': {
      const u = state.unread_msgs;
      if (!u) return;
      if ('new_stream_id' in e || 'subject' in e) refileUnread(u, e.message_ids as number[], { streamId: e.new_stream_id, topic: e.subject });
      if ('rendered_content' in e) {
        const flags = e.flags as string[];
        setUnreadMention(u, e.message_id, flags.includes('mentioned') || flags.includes('wildcard_mentioned'));
      }
      return;
    }
    case 'update_message_flags': {
      const ids = e.messages as number[];
      if (e.flag === 'read' && state.unread_msgs) {
        if (e.op === 'add') (e.all ? clearUnread(state.unread_msgs) : removeUnread(state.unread_msgs, ids));
        for (const [id, d] of Object.entries(e.op === 'remove' ? e.message_details ?? {} : {})) {
          addUnread(state.unread_msgs, Number(id), placeOfDetails(d as Record<string, any>, viewerId), (d as { mentioned?: boolean }).mentioned === true);
        }
      }
      if (e.flag === 'starred' && state.starred_messages) {
        const starred = new Set<number>(state.starred_messages);
        for (const id of ids) (e.op === 'add' ? starred.add(id) : starred.delete(id));
        state.starred_messages = [...starred].sort((a, b) => a - b);
      }
      return;
    }
    case 'delete_message': {
      const ids: number[] = e.message_ids ?? [e.message_id];
      if (state.unread_msgs) removeUnread(state.unread_msgs, ids);
      if (state.starred_messages) state.starred_messages = state.starred_messages.filter((id: number) => !ids.includes(id));
      return;
    }
    case 'typing':
      // Typing is transient: no register state holds it, clients show and expire it themselves.
      return;
    case 'reaction':
      // Reactions live on messages, which no register state holds.
      return;
    case 'drafts': {
      if (!state.drafts) return;
      if (e.op === 'add') state.drafts.push(...e.drafts);
      if (e.op === 'update') state.drafts = state.drafts.map((d: any) => (d.id === e.draft.id ? e.draft : d));
      if (e.op === 'remove') state.drafts = state.drafts.filter((d: any) => d.id !== e.draft_id);
      // Register's order: the most recently edited first, ties by id.
      state.drafts.sort((a: any, b: any) => b.timestamp - a.timestamp || b.id - a.id);
      return;
    }
    case 'user_status':
      if (state.user_status) applyUserStatus(state.user_status, e);
      return;
    case 'muted_users':
      if ('muted_users' in state) state.muted_users = e.muted_users;
      return;
    case 'user_group':
      if (state.realm_user_groups) applyUserGroup(state.realm_user_groups, e);
      return;
    case 'custom_profile_fields':
      if ('custom_profile_fields' in state) state.custom_profile_fields = e.fields;
      // A deleted field takes its values along; no realm_user event says so (as in Zulip).
      for (const u of [...(state.realm_users ?? []), ...(state.realm_non_active_users ?? [])]) {
        for (const id of Object.keys(u.profile_data ?? {})) if (!e.fields.some((f: any) => String(f.id) === id)) delete u.profile_data[id];
      }
      return;
    case 'realm':
      // Register names each organization setting `realm_<name>`.
      if (e.op === 'update' && `realm_${e.property}` in state) state[`realm_${e.property}`] = e.value;
      if (e.op === 'update_dict') for (const [k, v] of Object.entries(e.data as object)) if (`realm_${k}` in state) state[`realm_${k}`] = v;
      return;
    case 'realm_user_settings_defaults':
      if (state.realm_user_settings_defaults) state.realm_user_settings_defaults[e.property] = e.value;
      return;
    case 'realm_linkifiers':
      if ('realm_linkifiers' in state) state.realm_linkifiers = e.realm_linkifiers;
      return;
    case 'realm_filters':
      if ('realm_filters' in state) state.realm_filters = e.realm_filters;
      return;
    case 'invites_changed':
      // Register holds no invitations: clients refetch GET /invites.
      return;
    case 'attachment':
      // Zulip 5's register holds no attachments (clients fetch GET /attachments).
      return;
    case 'realm_emoji':
      if ('realm_emoji' in state) state.realm_emoji = e.realm_emoji;
      return;
    default:
  }
}

/** A user_status event merged into register's `user_status`: cleared fields leave, an empty status leaves entirely. */
function applyUserStatus(all: Record<string, Record<string, unknown>>, e: Ev): void {
  const key = String(e.user_id);
  const s = { ...all[key] };
  if ('away' in e) (e.away ? (s.away = true) : delete s.away);
  if ('status_text' in e) (e.status_text ? (s.status_text = e.status_text) : delete s.status_text);
  if ('emoji_name' in e) {
    for (const f of ['emoji_name', 'emoji_code', 'reaction_type']) (e.emoji_name ? (s[f] = e[f]) : delete s[f]);
  }
  if (Object.keys(s).length > 0) all[key] = s;
  else delete all[key];
}

/** A user_group event applied to register's `realm_user_groups` (kept by id, members ascending). */
function applyUserGroup(groups: Array<Record<string, any>>, e: Ev): void {
  if (e.op === 'add') {
    groups.push(e.group);
    groups.sort((a, b) => a.id - b.id);
    return;
  }
  const i = groups.findIndex((g) => g.id === e.group_id);
  if (i < 0) return;
  const g = groups[i]!;
  if (e.op === 'remove') groups.splice(i, 1);
  if (e.op === 'update') Object.assign(g, e.data);
  if (e.op === 'add_members') g.members = [...g.members, ...e.user_ids].sort((a: number, b: number) => a - b);
  if (e.op === 'remove_members') g.members = g.members.filter((id: number) => !e.user_ids.includes(id));
}

/** A realm_user update's `custom_profile_field`: a null value clears it; rendered_value only for text fields. */
function applyProfileValue(data: Record<string, any>, f: { id: number; value: unknown; rendered_value?: string }): void {
  if (f.value === null) delete data[String(f.id)];
  else data[String(f.id)] = f.rendered_value === undefined ? { value: f.value } : { value: f.value, rendered_value: f.rendered_value };
}
