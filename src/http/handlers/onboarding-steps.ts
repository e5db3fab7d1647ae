import { done, NoAnswer, route, type Route } from '../route.js';
import { Str } from '../../schemas/params.js';
import { transact } from '../../actions/transaction.js';
import { doMarkOnboardingStepRead } from '../../actions/onboarding-steps.js';

export const onboardingStepRoutes: Route[] = [
  route({
    // Feature level 233 (hotspots became onboarding steps); Zulip's human_users_only.
    method: 'POST', path: '/users/me/onboarding_steps', auth: 'user', requires: 'human', summary: 'Mark an onboarding step as read',
    params: { onboarding_step: Str({ description: 'The name of the one-time notice the user has seen' }) },
    answer: NoAnswer,
    handler: async (r) => {
      const step = r.args.onboarding_step;
      return done(transact(r.ctx, async (tx) => doMarkOnboardingStepRead(tx, r.user, step)));
    },
  }),
];
