import { NoAnswer, route, type Route } from '../route.js';
import { Opt, Str, StrList } from '../../schemas/params.js';
import { receiveWebhook } from '../../actions/webhook-receive.js';
import { integrationNamed } from '../../webhooks/index.js';
import { LIST_LIMITS } from '../../lib/limits.js';

/**
 * Incoming webhooks: /api/v1/external/<integration_name>, as Zulip's. Any name that is no
 * integration answers 404 before credentials are looked at, as an unknown URL does.
 */
/** Besides these, each integration reads its own (and its payload, whatever its form). */
const WEBHOOK_PARAMS = {
  api_key: Opt(Str({ description: 'The incoming-webhook bot\'s key, or basic auth' })),
  stream: Opt(Str({ description: 'The stream to post to; a private message to the bot\'s owner without it' })),
  topic: Opt(Str({ description: 'Overrides the integration\'s topic' })),
  only_events: Opt(StrList(LIST_LIMITS.other)), exclude_events: Opt(StrList(LIST_LIMITS.other)),
};

export const webhookRoutes: Route[] = [
  route({
    method: 'POST', path: '/external/:integration_name', auth: 'webhook', summary: 'Receive an incoming webhook',
    params: WEBHOOK_PARAMS,
    answer: NoAnswer,
    known: (path) => integrationNamed(path.integration_name ?? '') !== undefined,
    handler: async (r) => {
      const integration = integrationNamed(r.path.integration_name ?? '')!;
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(r.req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      await receiveWebhook(r.ctx, r.realm, r.bot, {
        integration, path: r.req.url.split('?')[0]!, raw: r.raw, form: r.form,
        contentType: headers['content-type'] ?? '', headers,
        param: (name) => r.params.rawValue(name),
        only: r.args.only_events, exclude: r.args.exclude_events,
      });
      return {};
    },
  }),
];
