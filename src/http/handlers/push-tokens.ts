import { done, NoAnswer, route, type Route } from '../route.js';
import { Opt, Str } from '../../schemas/params.js';
import { transact } from '../../actions/transaction.js';
import { DEFAULT_IOS_APP_ID, doAddPushDeviceToken, doRemovePushDeviceToken } from '../../actions/push-tokens.js';
import { PUSH_KIND } from '../../lib/push-kind.js';
import { badRequest } from '../../errors.js';

const TOKEN = { token: Str({ description: 'The device token: hex or base64 for APNs, as FCM gives it for Android' }) };

export const pushTokenRoutes: Route[] = [
  route({
    method: 'POST', path: '/users/me/apns_device_token', auth: 'user', requires: 'human', summary: 'Add an APNs device token',
    params: {
      ...TOKEN,
      // Required by Zulip from feature level 223; older clients' requests stay accepted
      // (every level's requests are), with Zulip's former default.
      appid: Opt(Str({ description: 'The iOS app\'s bundle ID (required by Zulip from feature level 223)' })),
    },
    answer: NoAnswer,
    handler: async (r) => {
      const token = r.args.token;
      const appid = r.args.appid ?? DEFAULT_IOS_APP_ID;
      // Zulip's ApnsAppId pattern, its typed_endpoint wording.
      if (!/^[.a-zA-Z0-9-]+$/.test(appid)) throw badRequest('appid has invalid format');
      return done(transact(r.ctx, (tx) => doAddPushDeviceToken(tx, r.user, PUSH_KIND.APNS, token, appid)));
    },
  }),
  route({
    method: 'DELETE', path: '/users/me/apns_device_token', auth: 'user', requires: 'human', summary: 'Remove an APNs device token',
    params: TOKEN, answer: NoAnswer,
    handler: async (r) => done(transact(r.ctx, (tx) => doRemovePushDeviceToken(tx, r.user, PUSH_KIND.APNS, r.args.token))),
  }),
  route({
    method: 'POST', path: '/users/me/android_gcm_reg_id', auth: 'user', requires: 'human', summary: 'Add an FCM registration token',
    params: TOKEN, answer: NoAnswer,
    handler: async (r) => done(transact(r.ctx, (tx) => doAddPushDeviceToken(tx, r.user, PUSH_KIND.FCM, r.args.token, null))),
  }),
  route({
    method: 'DELETE', path: '/users/me/android_gcm_reg_id', auth: 'user', requires: 'human', summary: 'Remove an FCM registration token',
    params: TOKEN, answer: NoAnswer,
    handler: async (r) => done(transact(r.ctx, (tx) => doRemovePushDeviceToken(tx, r.user, PUSH_KIND.FCM, r.args.token))),
  }),
];
