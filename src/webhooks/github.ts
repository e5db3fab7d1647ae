import { unsupportedWebhookEvent } from '../errors.js';
import type { Integration, WebhookInput, WebhookMessage } from './types.js';
import type { Wild } from './wild.js';
import { itemMessage, pushCommitsMessage, setupMessage, topicWithBranch, topicWithItem, type CommitData } from './git.js';

/**
 * GitHub (Zulip's zerver/webhooks/github): the event is the X-GitHub-Event header, refined by
 * the payload's action. Handled here: push (commits and tags), issues, issue_comment,
 * pull_request and ping; known events Zulip ignores answer success and post nothing.
 */
const NAME = 'GitHub';
const IGNORED_EVENTS = new Set(['check_suite', 'label', 'meta', 'milestone', 'organization', 'project_card', 'repository_vulnerability_alert']);
const IGNORED_PR_ACTIONS = new Set(['approved', 'converted_to_draft', 'labeled', 'review_request_removed', 'unlabeled']);

const sender = (p: Wild) => p.at('sender').at('login').str();
const repoName = (p: Wild) => p.at('repository').at('name').str();

function zulipEvent(header: string, p: Wild): string | null {
  if (header === 'pull_request') {
    const action = p.at('action').str();
    if (['opened', 'synchronize', 'reopened', 'edited'].includes(action)) return 'opened_or_update_pull_request';
    if (action === 'assigned' || action === 'unassigned') return 'assigned_or_unassigned_pull_request';
    if (action === 'closed') return 'closed_pull_request';
    if (IGNORED_PR_ACTIONS.has(action)) return null;
  } else if (header === 'push') {
    return p.at('ref').str().startsWith('refs/heads/') ? 'push_commits' : 'push_tags';
  } else if (header === 'issues' || header === 'issue_comment' || header === 'ping') {
    return header;
  } else if (IGNORED_EVENTS.has(header)) {
    return null;
  }
  const action = p.get('action');
  throw unsupportedWebhookEvent(`${header}:${action.value === undefined ? '???' : action.str()}`, NAME);
}

function topicOf(p: Wild, event: string): string {
  if (event.includes('pull_request')) {
    const pr = p.at('pull_request');
    return topicWithItem(repoName(p), 'PR', pr.at('number').int(), pr.at('title').str());
  }
  if (event.startsWith('issue')) {
    const issue = p.at('issue');
    return topicWithItem(repoName(p), 'Issue', issue.at('number').int(), issue.at('title').str());
  }
  if (event === 'push_commits') return topicWithBranch(repoName(p), branchOf(p.at('ref').str()));
  if (event === 'ping' && !p.get('repository').truthy()) return p.at('organization').at('login').str();
  return repoName(p);
}

const branchOf = (ref: string) => ref.replace(/^refs\/heads\//, '');

function bodyOf(p: Wild, event: string, withTitle: boolean): string {
  switch (event) {
    case 'opened_or_update_pull_request': {
      const pr = p.at('pull_request');
      let action = p.at('action').str();
      if (action === 'synchronize') action = 'updated';
      const assignee = pr.get('assignee').truthy() ? pr.at('assignee').at('login').str() : null;
      const changes = p.get('changes');
      const description = changes.has('body') || action === 'opened' ? pr.at('body').optStr() : null;
      const branches = action === 'opened' || action === 'merged';
      return itemMessage({
        user: sender(p), action, url: pr.at('html_url').str(), number: pr.at('number').int(), message: description, assignee,
        targetBranch: branches ? pr.at('head').at('label').str() : null, baseBranch: branches ? pr.at('base').at('label').str() : null,
        title: withTitle ? pr.at('title').str() : null,
      });
    }
    case 'assigned_or_unassigned_pull_request': {
      const pr = p.at('pull_request');
      const base = itemMessage({ user: sender(p), action: p.at('action').str(), url: pr.at('html_url').str(), number: pr.at('number').int(), title: withTitle ? pr.at('title').str() : null });
      return pr.get('assignee').truthy() ? `${base.slice(0, -1)} to ${pr.at('assignee').at('login').str()}.` : base;
    }
    case 'closed_pull_request': {
      const pr = p.at('pull_request');
      return itemMessage({
        user: sender(p), action: pr.at('merged').bool() ? 'merged' : 'closed without merge', url: pr.at('html_url').str(),
        number: pr.at('number').int(), title: withTitle ? pr.at('title').str() : null,
      });
    }
    case 'issues': {
      const issue = p.at('issue');
      const action = p.at('action').str();
      const base = itemMessage({
        user: sender(p), action, url: issue.at('html_url').str(), number: issue.at('number').int(), type: 'Issue',
        message: action === 'assigned' || action === 'unassigned' ? null : issue.at('body').optStr(), title: withTitle ? issue.at('title').str() : null,
      });
      if (p.has('assignee')) {
        const who = p.at('assignee').at('login').str();
        if (action === 'assigned') return `${base.slice(0, -1)} to ${who}.`;
        if (action === 'unassigned') return base.replace('unassigned', `unassigned ${who} from`);
      }
      return base;
    }
    case 'issue_comment': {
      const comment = p.at('comment');
      const issue = p.at('issue');
      const action = p.at('action').str();
      const verb = `${action === 'created' ? '[commented]' : `${action} a [comment]`}(${comment.at('html_url').str()}) on`;
      return itemMessage({
        user: sender(p), action: verb, url: issue.at('html_url').str(), number: issue.at('number').int(), type: 'Issue',
        message: comment.at('body').str(), title: withTitle ? issue.at('title').str() : null,
      });
    }
    case 'push_commits': {
      const commits: CommitData[] = p.at('commits').list().map((c) => {
        const author = c.at('author');
        return {
          name: author.get('username').truthy() ? author.at('username').str() : author.at('name').str(),
          sha: c.at('id').str(), url: c.at('url').str(), message: c.at('message').str(),
        };
      });
      return pushCommitsMessage(sender(p), p.at('compare').str(), branchOf(p.at('ref').str()), commits,
        { deleted: p.at('deleted').bool(), forced: p.get('forced').value === true });
    }
    case 'push_tags': {
      const tag = p.at('ref').str().replace(/^refs\/tags\//, '');
      const message = `${sender(p)} ${p.at('created').bool() ? 'pushed' : 'removed'} tag ${tag}`;
      return /[!-/:-@[-`{-~]$/.test(tag) ? message : `${message}.`;
    }
    default:
      return setupMessage(NAME, sender(p));
  }
}

export const github: Integration = {
  allEventTypes: [
    'assigned_or_unassigned_pull_request', 'closed_pull_request', 'issue_comment', 'issues', 'opened_or_update_pull_request', 'ping',
    'push_commits', 'push_tags',
  ],
  displayName: NAME,
  payload: 'json',
  eventHeader: 'X-GitHub-Event',
  handle: ({ payload, headers, userTopic }: WebhookInput): WebhookMessage | null => {
    const header = headers['x-github-event']!;
    const event = zulipEvent(header, payload);
    if (event === null) return null;
    return { topic: topicOf(payload, event), body: bodyOf(payload, event, userTopic), event };
  },
};
