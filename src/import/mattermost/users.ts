import type { Row } from '../source.js';
import { ImportError } from '../source.js';
import { type JsonObject, num, objects, str } from './lines.js';
import { DIRECT, type Scan, directMembers } from './scan.js';

/**
 * People, as zerver/data_import/mattermost.py takes them: the team's members, and as
 * deactivated "mirror dummies" the others whose posts are imported (they left the team, or
 * only ever wrote direct messages). Roles from the team membership: team admin -> owner (the
 * help center's table), team guest -> guest; beyond Zulip, a system admin who is not a team
 * admin becomes an administrator and `delete_at` deactivates.
 */

export const ROLE = { OWNER: 100, ADMINISTRATOR: 200, MEMBER: 400, GUEST: 600 } as const;

export interface People {
  rows: Row[];
  idByName: Map<string, number>;
  fullNameById: Map<number, string>;
  activeById: Map<number, boolean>;
}

export const teamMembership = (user: JsonObject, team: string): JsonObject | undefined =>
  objects(user.teams).find((t) => str(t.name) === team);

const roles = (v: unknown): string[] => str(v).split(/\s+/).filter(Boolean);

function roleOf(user: JsonObject, team: string): number {
  const teamRoles = roles(teamMembership(user, team)?.roles);
  const systemRoles = roles(user.roles);
  if (teamRoles.includes('team_admin')) return ROLE.OWNER;
  if (systemRoles.includes('system_admin')) return ROLE.ADMINISTRATOR;
  if (teamRoles.includes('team_guest') || systemRoles.includes('system_guest')) return ROLE.GUEST;
  return ROLE.MEMBER;
}

function fullName(user: JsonObject): string {
  const name = `${str(user.first_name)} ${str(user.last_name)}`.trim();
  return name === '' ? str(user.username) : name;
}

export function convertUsers(scan: Scan, team: string, withDirect: boolean, emailDomain: string, now: number): People {
  const byName = new Map<string, JsonObject>();
  for (const { row } of scan.users) byName.set(str(row.username), row);

  const referenced = new Set<string>();
  const check = (username: string, lineNo: number, what: string): void => {
    if (!byName.has(username)) throw new ImportError(`export.json line ${lineNo}: ${what} by unknown user "${username}"`);
    referenced.add(username);
  };
  for (const [username, lineNo] of scan.authors.get(team) ?? []) check(username, lineNo, 'a post');
  if (withDirect) {
    for (const [username, lineNo] of scan.authors.get(DIRECT) ?? []) check(username, lineNo, 'a direct post');
    for (const { members, lineNo } of scan.directChannels) for (const m of members) check(m, lineNo, 'a direct channel');
    // Members of a direct conversation that has posts but no direct_channel line.
    for (const key of scan.conversations) {
      if (!key.startsWith('d\u0000')) continue;
      for (const m of directMembers(key)) {
        if (!byName.has(m)) throw new ImportError(`export.json: a direct post names unknown user "${m}" among its channel_members`);
        referenced.add(m);
      }
    }
  }

  const people: People = { rows: [], idByName: new Map(), fullNameById: new Map(), activeById: new Map() };
  for (const { row: user } of scan.users) {
    const username = str(user.username);
    if (people.idByName.has(username)) continue;
    const member = teamMembership(user, team) !== undefined;
    if (!member && !referenced.has(username)) continue;
    const id = people.rows.length + 1;
    const dummy = !member;
    const isActive = !dummy && num(user.delete_at) === 0;
    const email = str(user.email) || `${username}@${emailDomain}`;
    const name = fullName(user);
    people.rows.push({
      id, email, delivery_email: email, full_name: name, short_name: username,
      role: dummy ? ROLE.MEMBER : roleOf(user, team), is_active: isActive, is_mirror_dummy: dummy,
      is_bot: false, bot_type: null, bot_owner: null, timezone: 'UTC', date_joined: now, avatar_source: 'G', realm: 1,
    });
    people.idByName.set(username, id);
    people.fullNameById.set(id, name);
    people.activeById.set(id, isActive);
  }
  return people;
}
