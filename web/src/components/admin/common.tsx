/**
 * What the administration screens share: the API's answer as a notice ("Saved", or what the
 * server refused), Zulip's role names, and the organization's streams and people as the
 * screens list them.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../../api';
import { t } from '../../i18n';
import type { State, Stream, User } from '../../types';

export type Note = { text: string; error: boolean } | null;

/** Runs an API call and says how it went: `ok` when it worked, the server's own words when not. */
export function useRunner(): [Note, (f: () => Promise<unknown>, ok: string) => Promise<boolean>] {
  const [note, setNote] = useState<Note>(null);
  const run = async (f: () => Promise<unknown>, ok: string) => {
    setNote(null);
    try {
      await f();
      setNote({ text: ok, error: false });
      return true;
    } catch (e) {
      setNote({ text: e instanceof ApiError ? e.message : t('Could not reach the server.'), error: true });
      return false;
    }
  };
  return [note, run];
}

export function Notice({ note }: { note: Note }) {
  return <p role="status" class={`admin-note ${note?.error ? 'error' : ''}`}>{note?.text ?? ''}</p>;
}

/** Zulip's roles, most powerful first. */
export const ROLES = (): Array<[number, string]> => [
  [100, t('Owner')], [200, t('Administrator')], [300, t('Moderator')], [400, t('Member')], [600, t('Guest')],
];
export const roleName = (role: number | undefined) => ROLES().find(([v]) => v === role)?.[1] ?? t('Member');

/** A user's role, from `role` (feature level 59) or the older flags. */
export const roleOf = (u: User): number => {
  const x = u as User & { role?: number; is_owner?: boolean; is_admin?: boolean; is_guest?: boolean };
  return x.role ?? (x.is_owner ? 100 : x.is_admin ? 200 : x.is_guest ? 600 : 400);
};

export const amOwner = (s: State) => s.reg.is_owner === true;

/** Every stream the viewer knows of, by name. */
export const allStreams = (s: State): Stream[] => [...s.streamsById.values()].sort((a, b) => a.name.localeCompare(b.name));

/** The people of the organization (not bots), active or not, by name. */
export const humans = (s: State, active: boolean): User[] =>
  ((active ? s.reg.realm_users : s.reg.realm_non_active_users) ?? []).filter((u) => !u.is_bot).sort((a, b) => a.full_name.localeCompare(b.full_name));

export const realmUrl = (s: State): string => String(s.reg.realm_url ?? s.reg.realm_uri ?? location.origin).replace(/\/$/, '');
