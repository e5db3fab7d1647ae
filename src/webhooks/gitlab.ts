import { unsupportedWebhookEvent } from '../errors.js';
import type { Integration, WebhookInput, WebhookMessage } from './types.js';
import type { Wild } from './wild.js';
import { EMPTY_SHA, itemMessage, pushCommitsMessage, topicWithBranch, topicWithItem } from './git.js';

/**
 * GitLab (Zulip's zerver/webhooks/gitlab): the X-Gitlab-Event header names the hook, and
 * for issues and merge requests the payload's object_attributes.action refines it
 * ("Issue Hook open"). Handled here: Push Hook, Issue Hook, Merge Request Hook.
 */
const NAME = 'GitLab';

const repoName = (p: Wild) => (p.has('project') ? p.at('project').at('name').str() : p.at('repository').at('name').str());
const homepage = (p: Wild) => (p.has('project') ? p.at('project').at('web_url').str() : p.at('repository').at('homepage').str());
const branchOf = (p: Wild) => p.at('ref').str().replace('refs/heads/', '');
const issueUser = (p: Wild) => p.at('user').at('name').str();
const attrs = (p: Wild) => p.at('object_attributes');

/** Assignees by full name (Zulip's replace_assignees_username_with_name). */
function assigneeNames(p: Wild): string[] {
  const many = p.get('assignees');
  if (many.value !== undefined && many.value !== null) return many.list().map((a) => a.at('name').str());
  const one = p.get('assignee');
  return one.value === undefined || one.value === null ? [] : [one.at('name').str()];
}

function pushBody(p: Wild): string {
  if (p.get('after').value === EMPTY_SHA) return `${p.at('user_name').str()} deleted branch ${branchOf(p)}.`;
  const compare = `${homepage(p)}/compare/${p.at('before').str()}...${p.at('after').str()}`;
  const commits = p.at('commits').list().map((c) => ({
    name: c.at('author').at('name').str(), sha: c.at('id').str(), message: c.at('message').str(), url: c.at('url').str(),
  }));
  return pushCommitsMessage(p.at('user_name').str(), compare, branchOf(p), commits);
}

function issueBody(p: Wild, action: string, withTitle: boolean): string {
  const a = attrs(p);
  const created = action === 'created';
  // Hidden HTML comments in a description (GitLab's templates) are left out, as Zulip does.
  const description = created ? a.get('description').optStr()?.replace(/<!--[\s\S]*?-->/g, '').trimEnd() : null;
  return itemMessage({
    user: issueUser(p), action, url: a.at('url').str(), number: a.at('iid').int(), type: 'Issue', message: description,
    assignees: created ? assigneeNames(p) : [], title: withTitle ? a.at('title').str() : null,
  });
}

function mergeRequestBody(p: Wild, action: string, withTitle: boolean): string {
  const a = attrs(p);
  const title = withTitle ? a.at('title').str() : null;
  if (action === 'updated' && a.get('oldrev').truthy()) action = 'added commit(s) to';
  else if (action === 'created' || action === 'updated') {
    return itemMessage({
      user: issueUser(p), action, url: a.at('url').str(), number: a.at('iid').int(), type: 'MR',
      targetBranch: a.get('source_branch').optStr(), baseBranch: a.get('target_branch').optStr(), message: a.get('description').optStr(),
      assignees: assigneeNames(p), title,
    });
  }
  return itemMessage({ user: issueUser(p), action, url: a.at('url').str(), number: a.at('iid').int(), type: 'MR', title });
}

const ISSUE_ACTIONS: Record<string, string> = { open: 'created', close: 'closed', reopen: 'reopened', update: 'updated' };
const MR_ACTIONS: Record<string, string> = {
  open: 'created', update: 'updated', merge: 'merged', close: 'closed', reopen: 'reopened', approved: 'approved', unapproved: 'unapproved',
};

export const gitlab: Integration = {
  displayName: NAME,
  allEventTypes: [
    'Push Hook',
    ...['Issue Hook', 'Confidential Issue Hook'].flatMap((hook) => Object.keys(ISSUE_ACTIONS).map((a) => `${hook} ${a}`)),
    ...Object.keys(MR_ACTIONS).map((a) => `Merge Request Hook ${a}`),
  ],
  payload: 'json',
  eventHeader: 'X-Gitlab-Event',
  handle: ({ payload: p, headers, param, userTopic }: WebhookInput): WebhookMessage | null => {
    let event = headers['x-gitlab-event']!;
    let body: string;
    let topic: string;
    if (event === 'Push Hook') {
      const branches = param('branches');
      if (branches !== undefined && !branches.includes(branchOf(p))) return null;
      body = pushBody(p);
      topic = topicWithBranch(repoName(p), branchOf(p));
    } else if (event === 'Issue Hook' || event === 'Confidential Issue Hook' || event === 'Merge Request Hook') {
      const a = attrs(p);
      const raw = a.has('action') ? a.at('action').str() : 'open';
      event = `${event} ${raw}`;
      const isIssue = !event.startsWith('Merge');
      const action = Object.hasOwn(isIssue ? ISSUE_ACTIONS : MR_ACTIONS, raw) ? (isIssue ? ISSUE_ACTIONS : MR_ACTIONS)[raw]! : undefined;
      if (action === undefined) throw unsupportedWebhookEvent(event, NAME);
      body = isIssue ? issueBody(p, action, userTopic) : mergeRequestBody(p, action, userTopic);
      const useMrTitle = param('use_merge_request_title') !== 'false';
      topic = topicWithItem(repoName(p), isIssue ? 'Issue' : 'MR', a.at('iid').int(), isIssue || useMrTitle ? a.at('title').str() : '');
    } else {
      throw unsupportedWebhookEvent(event, NAME);
    }
    // With a topic of the caller's, the body says which project it is about.
    if (userTopic) body = `[[${repoName(p)}](${homepage(p)})] ${body}`;
    return { topic, body, event };
  },
};
