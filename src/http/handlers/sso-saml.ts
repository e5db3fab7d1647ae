import { route, type BaseRequest, type Route } from '../route.js';
import { Opt, Str } from '../../schemas/params.js';
import { realmUri } from '../../lib/realm-host.js';
import { SsoRefusal, signInExternally } from '../../actions/external-login.js';
import { useSsoSecretOnce } from '../../actions/sso-tokens.js';
import { finishSignIn, isDesktopApp, readFlowStart, refusingWithPage, saveFlow, sendDesktopLogin, takeFlow } from '../sso/flow.js';
import { ACS_PATH, METADATA_PATH, authorizeUrl, findIdp, newRequestId, spEntityId, spMetadataXml, validateResponse, type SamlFlowData, type SpView } from '../../sso/saml.js';
import type { SamlConfig } from '../../lib/sso-config.js';

/**
 * SAML 2.0 sign-in (issue 34) at Zulip's URLs: the buttons' /accounts/login/social/saml/<idp>
 * (and register/), the assertion consumer /complete/saml/, the SP metadata. RelayState is the
 * flow's one-time token: the IdP's cross-site POST carries no SameSite=Lax cookie, so the
 * flow is bound to the request (InResponseTo) instead of to the browser.
 */

/** The service provider as the organization of this Host presents it (its own assertion consumer). */
const spView = (r: BaseRequest<unknown>, saml: SamlConfig): SpView => ({
  entityId: spEntityId(saml, r.ctx.config.externalUrl),
  acsUrl: `${realmUri(r.ctx.config, r.realm)}${ACS_PATH}`,
});

const notConfigured = (idp?: string) => new SsoRefusal('not_configured', 'SAML sign-in is not configured for this identity provider on this server.', { backend: 'saml', idp });

function configured(r: BaseRequest<unknown>): SamlConfig {
  const saml = r.ctx.config.sso.saml;
  if (!saml) throw notConfigured();
  return saml;
}

const start = (isSignup: boolean): Route => route({
  method: 'GET', path: `/accounts/${isSignup ? 'register' : 'login'}/social/saml/:idp`, prefix: '', auth: 'none',
  summary: isSignup ? 'Sign up through a SAML identity provider' : 'Sign in through a SAML identity provider',
  handler: (r) => refusingWithPage(r, async () => {
    const saml = configured(r);
    const idp = findIdp(saml, r.path.idp ?? '');
    if (!idp) throw notConfigured(r.path.idp);
    if (isDesktopApp(r.req)) return sendDesktopLogin(r.reply);
    const flowStart = readFlowStart(r.req, isSignup);
    const method: SamlFlowData = { idp: idp.name, requestId: newRequestId(), requestedAt: Date.now() };
    const token = await saveFlow(r.ctx, r.realm, { backend: 'saml', start: flowStart, method });
    const url = await authorizeUrl(saml, idp, spView(r, saml), method.requestId, token);
    void r.reply.status(302).header('location', url).header('cache-control', 'no-store').send();
    return {};
  }),
});

export const samlRoutes: Route[] = [
  start(false),
  start(true),
  route({
    method: 'POST', path: ACS_PATH, prefix: '', auth: 'none', summary: "The SAML assertion consumer: the identity provider's answer (HTTP-POST binding)",
    // The IdP's form; a response is some kilobytes, well under the global body limit (src/http/body-limits.ts).
    params: { SAMLResponse: Opt(Str()), RelayState: Opt(Str()) },
    handler: (r) => refusingWithPage(r, async () => {
      const saml = configured(r);
      const flow = await takeFlow<SamlFlowData>(r.ctx, r.realm, 'saml', r.args.RelayState);
      const idp = findIdp(saml, flow.method.idp);
      if (!idp) throw notConfigured(flow.method.idp);
      if (!r.args.SAMLResponse) throw new SsoRefusal('invalid_response', 'Your identity provider sent no SAML response. Start again from the sign-in page.', { backend: 'saml', idp: idp.name });
      const result = await validateResponse(saml, idp, spView(r, saml), flow.method, r.args.SAMLResponse);
      // The flow already works once; this also refuses the same assertion sent for another request.
      if (!(await useSsoSecretOnce(r.ctx, 'saml-assertion', r.realm.id, `${idp.name}:${result.assertionId}`, result.validUntil))) {
        throw new SsoRefusal('replayed', 'This answer from your identity provider was already used. Start again from the sign-in page.', { backend: 'saml', idp: idp.name });
      }
      const user = await signInExternally(r.ctx, r.realm, { backend: 'saml', email: result.email, emailVerified: true, fullName: result.fullName }, { autoSignup: idp.autoSignup });
      return finishSignIn(r, user, flow.start);
    }),
  }),
  route({
    method: 'GET', path: METADATA_PATH, prefix: '', auth: 'none', summary: "Parley's SAML service-provider metadata, for the identity provider's administrator",
    handler: (r) => refusingWithPage(r, async () => {
      const saml = configured(r);
      void r.reply.header('content-type', 'text/xml; charset=utf-8').header('cache-control', 'no-cache').send(spMetadataXml(saml, spView(r, saml)));
      return {};
    }),
  }),
];
