/**
 * Message templates shared by the git-hosting integrations, as Zulip's
 * zerver/lib/webhooks/git.py words them.
 */
export const EMPTY_SHA = '0000000000000000000000000000000000000000';
const COMMITS_LIMIT = 20;
const COMMITTERS_LIMIT = 3;

export interface CommitData {
  name: string;
  sha: string;
  url: string | null;
  message: string;
}

export const shortSha = (sha: string) => sha.slice(0, 7);
export const topicWithBranch = (repo: string, branch: string) => `${repo} / ${branch}`;
export const topicWithItem = (repo: string, type: string, id: number, title: string) => `${repo} / ${type} #${id} ${title}`;

function commitsContent(commits: CommitData[]): string {
  let out = '';
  for (const c of commits.slice(0, COMMITS_LIMIT)) out += `* ${c.message.split('\n')[0]} ([${shortSha(c.sha)}](${c.url}))\n`;
  if (commits.length > COMMITS_LIMIT) out += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
  return out.trimEnd();
}

/** Committers by number of commits, ties alphabetically; past three, the rest as "others". */
function committers(commits: CommitData[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const c of commits) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  const items = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (items.length <= COMMITTERS_LIMIT) return items;
  const others = items.slice(COMMITTERS_LIMIT).reduce((n, [, k]) => n + k, 0);
  return [...items.slice(0, COMMITTERS_LIMIT), ['others', others]];
}

export function pushCommitsMessage(user: string, compareUrl: string | null, branch: string, commits: CommitData[], opts: { deleted?: boolean; forced?: boolean } = {}): string {
  if (commits.length === 0 && opts.deleted) return `${user} [deleted](${compareUrl}) the branch ${branch}.`;
  if (commits.length === 0 && opts.forced) return `${user} [force pushed](${compareUrl}) to branch ${branch}.`;
  if (commits.length === 0) return `${user} [pushed](${compareUrl}) the branch ${branch}.`;
  const what = `${commits.length} commit${commits.length > 1 ? 's' : ''}`;
  const verb = opts.forced ? 'force pushed' : 'pushed';
  const pushed = compareUrl ? `[${verb}](${compareUrl}) ${what}` : `${verb} ${what}`;
  const base = `${user} ${pushed} to branch ${branch}.`;
  const who = committers(commits);
  if (who.length === 1 && who[0]![0] === user) return `${base}\n\n${commitsContent(commits)}`.trimEnd();
  let details = `${who[0]![0]} (${who[0]![1]})`;
  for (const [name, n] of who.slice(1, -1)) details += `, ${name} (${n})`;
  if (who.length > 1) details += ` and ${who.at(-1)![0]} (${who.at(-1)![1]})`;
  return `${base} Commits by ${details}.\n\n${commitsContent(commits)}`.trimEnd();
}

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]$/;

export interface ItemMessage {
  user: string;
  action: string;
  url: string;
  number?: number | undefined;
  type?: string;
  title?: string | null | undefined;
  message?: string | null | undefined;
  assignee?: string | null | undefined;
  assignees?: string[] | undefined;
  targetBranch?: string | null | undefined;
  baseBranch?: string | null | undefined;
}

/** Zulip's get_pull_request_event_message (issues use it with type "Issue"). */
export function itemMessage(m: ItemMessage): string {
  const id = m.number !== undefined ? ` #${m.number}` : '';
  const type = m.type ?? 'PR';
  let main = m.title != null ? `${m.user} ${m.action} [${type}${id} ${m.title}](${m.url})` : `${m.user} ${m.action} [${type}${id}](${m.url})`;
  const assignees = m.assignees ?? [];
  if (assignees.length > 0) {
    const who = assignees.length === 1 ? assignees[0]! : `${assignees.slice(0, -1).join(', ')} and ${assignees.at(-1)!}`;
    main += ` (assigned to ${who})`;
  } else if (m.assignee) {
    main += ` (assigned to ${m.assignee})`;
  }
  if (m.targetBranch && m.baseBranch) main += ` from \`${m.targetBranch}\` to \`${m.baseBranch}\``;
  const punctuation = m.message ? ':' : '.';
  if (assignees.length > 0 || m.assignee || (m.targetBranch && m.baseBranch) || m.title == null) main += punctuation;
  else if (!PUNCTUATION.test(m.title)) main += punctuation;
  if (m.message) main += `\n\n~~~ quote\n${m.message}\n~~~`;
  return main.trimEnd();
}

export const setupMessage = (integration: string, user?: string) =>
  `${integration} webhook has been successfully configured${user ? ` by ${user}` : ''}.`;
