import type { Route } from '../route.js';
import { receiveWebhook } from '../../actions/webhook-receive.js';
import { integrationNamed } from '../../webhooks/index.js';
import { LIST_LIMITS } from '../../lib/limits.js';

/**
 * Incoming webhooks: /api/v1/external/<integration_name>, as Zulip's. Any name that is no
 * integration answers 404 before credentials are looked at, as an unknown URL does.
 */
export const webhookRoutes: Route[] = [
  {
    method: 'POST', path: '/external/:integration_name', auth: 'webhook',
    known: (path) => integrationNamed(path.integration_name ?? '') !== undefined,
    handler: async (r) => {
      const integration = integrationNamed(r.path.integration_name ?? '')!;
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(r.req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      await receiveWebhook(r.ctx, r.realm, r.bot, {
        integration, path: r.req.url.split('?')[0]!, raw: r.raw, form: r.form,
        contentType: headers['content-type'] ?? '', headers,
        param: (name) => r.params.optStr(name),
        only: r.params.optStrList('only_events', LIST_LIMITS.other), exclude: r.params.optStrList('exclude_events', LIST_LIMITS.other),
      });
      return {};
    },
  },
];
