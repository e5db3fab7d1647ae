import crypto from 'node:crypto';
import { SAML, SamlStatusError, ValidateInResponseTo, type CacheProvider, type Profile, type SamlConfig as NodeSamlOptions } from '@node-saml/node-saml';
import type { SamlConfig, SamlIdpConfig, SamlIdpEndpoint } from '../lib/sso-config.js';
import { parseIdpMetadata } from '../lib/saml-metadata.js';
import { SsoRefusal } from '../actions/external-login.js';

/**
 * Parley as a SAML 2.0 service provider, through node-saml (which checks the XML signatures,
 * the audience, the validity window and InResponseTo): AuthnRequests by HTTP-Redirect,
 * responses by HTTP-POST to Zulip's /complete/saml/. No state of its own: the request id
 * travels in the sign-in flow kept in the database (src/http/sso/flow.ts), so the node that
 * receives the response need not be the one that sent the person away.
 */

/** Zulip's assertion consumer (social_django's complete view for the saml backend). */
export const ACS_PATH = '/complete/saml/';
export const METADATA_PATH = '/saml/metadata.xml';

/** What is kept in the flow between the AuthnRequest and the response. */
export interface SamlFlowData {
  idp: string;
  requestId: string;
  /** When the request was made (ms): node-saml refuses a response to a request older than the flow allows. */
  requestedAt: number;
}

/** Who the assertion says signed in, and what is needed to refuse its replay. */
export interface SamlAssertionResult {
  email: string;
  fullName: string | null;
  assertionId: string;
  /** Until when (seconds) the assertion could be accepted: how long its id must be remembered. */
  validUntil: number;
}

/** The service provider as seen from one organization's host. */
export interface SpView {
  entityId: string;
  /** https://<organization host>/complete/saml/ */
  acsUrl: string;
}

/** A response may come back as long as a flow lasts (a person at the provider's password and second-factor pages). */
const REQUEST_TTL_MS = 15 * 60 * 1000;
/** Clocks of the IdP and of Parley may differ by this much; more is an expired or not-yet-valid assertion. */
const CLOCK_SKEW_MS = 60 * 1000;
const METADATA_TIMEOUT_MS = 10 * 1000;
/** A provider's metadata is read again after this long (certificate rollover), or after a restart. */
const METADATA_TTL_MS = 6 * 60 * 60 * 1000;
const MAX_METADATA_BYTES = 5 * 1024 * 1024;

export const spEntityId = (saml: SamlConfig, externalUrl: string): string => saml.sp.entityId ?? externalUrl;

export const findIdp = (saml: SamlConfig | null, name: string): SamlIdpConfig | undefined => saml?.idps.find((i) => i.name === name);

const metadataCache = new Map<string, { endpoint: SamlIdpEndpoint; until: number }>();

/** The provider's entity id, SSO URL and certificates: as configured, or from its metadata URL (fetched at first use, kept a while). */
export async function idpEndpoint(idp: SamlIdpConfig): Promise<SamlIdpEndpoint> {
  if (!('metadataUrl' in idp.endpoint)) return idp.endpoint;
  const { metadataUrl, entityId } = idp.endpoint;
  const cached = metadataCache.get(metadataUrl);
  if (cached && cached.until > Date.now()) return cached.endpoint;
  const fail = (why: string) => new SsoRefusal('provider_error', 'The identity provider cannot be reached right now. Try again in a few minutes.', { backend: 'saml', idp: idp.name, metadataUrl, error: why });
  let xml: string;
  try {
    const res = await fetch(metadataUrl, { signal: AbortSignal.timeout(METADATA_TIMEOUT_MS), redirect: 'follow' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    xml = await res.text();
  } catch (err) {
    throw fail((err as Error).message);
  }
  if (xml.length > MAX_METADATA_BYTES) throw fail('metadata too large');
  let endpoint: SamlIdpEndpoint;
  try {
    endpoint = parseIdpMetadata(xml, entityId, `metadata of IdP '${idp.name}' (${metadataUrl})`);
  } catch (err) {
    throw fail((err as Error).message);
  }
  metadataCache.set(metadataUrl, { endpoint, until: Date.now() + METADATA_TTL_MS });
  return endpoint;
}

function options(saml: SamlConfig, sp: SpView, endpoint: SamlIdpEndpoint, extra: Partial<NodeSamlOptions>): NodeSamlOptions {
  return {
    issuer: sp.entityId,
    callbackUrl: sp.acsUrl,
    entryPoint: endpoint.ssoUrl,
    idpCert: endpoint.certs,
    audience: sp.entityId,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: saml.sp.wantResponseSigned,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    // No NameIDPolicy format and no RequestedAuthnContext: the IdP's own choice of
    // identifier, and any way of signing in it allows (a second factor, Windows sign-in),
    // which a requested password-only context would make Entra ID and AD FS refuse.
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    ...(saml.sp.privateKey ? { privateKey: saml.sp.privateKey, publicCert: saml.sp.certificate ?? undefined, signatureAlgorithm: 'sha256' as const } : {}),
    ...extra,
  };
}

/** A new AuthnRequest id (the form node-saml makes: an NCName). */
export const newRequestId = (): string => `_${crypto.randomBytes(20).toString('hex')}`;

/** The provider's URL with the AuthnRequest (signed when the SP has a key) and RelayState. */
export async function authorizeUrl(saml: SamlConfig, idp: SamlIdpConfig, sp: SpView, requestId: string, relayState: string): Promise<string> {
  const endpoint = await idpEndpoint(idp);
  const client = new SAML(options(saml, sp, endpoint, { generateUniqueId: () => requestId, validateInResponseTo: ValidateInResponseTo.never }));
  return client.getAuthorizeUrlAsync(relayState, undefined, {});
}

/** The SP metadata for this host: entity id, the assertion consumer, signed assertions wanted, the signing certificate. */
export function spMetadataXml(saml: SamlConfig, sp: SpView): string {
  const client = new SAML({
    issuer: sp.entityId, callbackUrl: sp.acsUrl, idpCert: 'unused', wantAssertionsSigned: true, identifierFormat: null,
    ...(saml.sp.privateKey ? { privateKey: saml.sp.privateKey, publicCert: saml.sp.certificate ?? undefined } : {}),
  });
  return client.generateServiceProviderMetadata(null, saml.sp.certificate);
}

/**
 * The one request this response may answer, as node-saml's request-id cache: a response
 * without InResponseTo (unsolicited, IdP-initiated) or to another request is refused.
 */
function onlyRequest(flow: SamlFlowData): CacheProvider {
  return {
    saveAsync: async () => null,
    getAsync: async (key) => (key === flow.requestId ? new Date(flow.requestedAt).toISOString() : null),
    removeAsync: async () => null,
  };
}

const first = (v: unknown): string | null => {
  const x = Array.isArray(v) ? v[0] : v;
  return typeof x === 'string' && x.trim() !== '' ? x.trim() : null;
};

const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/**
 * Checks the POSTed SAMLResponse for the flow's request and answers the person; refuses
 * (SsoRefusal) an unsigned, foreign, expired, misaddressed or unsolicited one.
 */
/** A real response is some kilobytes; a few hundred is the most any provider sends with many attributes. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * Before any XML parser sees it: no SAML message has a document type declaration, and one
 * is how entity expansion bombs and external entities arrive (the parser would spend seconds
 * of the event loop on a bomb), so any DTD is refused outright, as are oversized answers.
 */
function checkShape(samlResponse: string, log: Record<string, unknown>): void {
  if (samlResponse.length > (MAX_RESPONSE_BYTES * 4) / 3 + 4) {
    throw new SsoRefusal('invalid_response', 'The answer from your identity provider is too large.', { ...log, length: samlResponse.length });
  }
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    throw new SsoRefusal('invalid_response', 'The answer from your identity provider could not be verified. Start again from the sign-in page.', { ...log, error: 'document type declaration' });
  }
}

export async function validateResponse(saml: SamlConfig, idp: SamlIdpConfig, sp: SpView, flow: SamlFlowData, samlResponse: string): Promise<SamlAssertionResult> {
  const log = { backend: 'saml', idp: idp.name };
  checkShape(samlResponse, log);
  const endpoint = await idpEndpoint(idp);
  const client = new SAML(options(saml, sp, endpoint, {
    validateInResponseTo: ValidateInResponseTo.always, requestIdExpirationPeriodMs: REQUEST_TTL_MS, cacheProvider: onlyRequest(flow),
  }));
  let profile: Profile | null;
  try {
    ({ profile } = await client.validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (err) {
    const error = (err as Error).message;
    if (err instanceof SamlStatusError) {
      throw new SsoRefusal('invalid_response', `Your identity provider did not sign you in (${error}).`, { ...log, error });
    }
    // node-saml's words for an assertion outside its validity windows (the subject's or the conditions').
    if (/expired|not yet valid|no valid subject confirmation/i.test(error)) {
      throw new SsoRefusal('expired', 'The answer from your identity provider has expired. Start again from the sign-in page.', { ...log, error });
    }
    throw new SsoRefusal('invalid_response', 'The answer from your identity provider could not be verified. Start again from the sign-in page.', { ...log, error });
  }
  if (!profile) throw new SsoRefusal('invalid_response', 'Your identity provider sent no assertion.', log);
  if (profile.issuer !== endpoint.entityId) {
    throw new SsoRefusal('invalid_response', 'The answer came from another identity provider than the one you chose.', { ...log, issuer: profile.issuer });
  }
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const email = first(attributes[idp.attrs.email]) ?? (profile.nameIDFormat === EMAIL_NAME_ID ? first(profile.nameID) : null);
  if (!email) {
    throw new SsoRefusal('invalid_response', `Your identity provider did not send your email address (the "${idp.attrs.email}" attribute).`, { ...log, attributes: Object.keys(attributes) });
  }
  const joined = [first(attributes[idp.attrs.firstName]), first(attributes[idp.attrs.lastName])].filter(Boolean).join(' ');
  const fullName = (idp.attrs.fullName ? first(attributes[idp.attrs.fullName]) : null) ?? (joined || null);
  const { assertionId, validUntil } = assertionIdentity(profile);
  return { email, fullName, assertionId, validUntil };
}

interface AssertionXml {
  Assertion?: {
    $?: { ID?: string };
    Conditions?: { $?: { NotOnOrAfter?: string } }[];
    Subject?: { SubjectConfirmation?: { SubjectConfirmationData?: { $?: { NotOnOrAfter?: string } }[] }[] }[];
  };
}

/** The signed assertion's ID and the latest moment any of its validity windows allows. */
function assertionIdentity(profile: Profile): { assertionId: string; validUntil: number } {
  const a = (profile.getAssertion?.() as AssertionXml | undefined)?.Assertion;
  const assertionId = a?.$?.ID;
  if (!assertionId) throw new SsoRefusal('invalid_response', 'Your identity provider sent an assertion without an ID.', { backend: 'saml' });
  const ends = [
    a.Conditions?.[0]?.$?.NotOnOrAfter,
    ...(a.Subject?.[0]?.SubjectConfirmation ?? []).map((c) => c.SubjectConfirmationData?.[0]?.$?.NotOnOrAfter),
  ].map((s) => (s ? Date.parse(s) : NaN)).filter((n) => Number.isFinite(n));
  const until = ends.length > 0 ? Math.max(...ends) : Date.now() + REQUEST_TTL_MS;
  return { assertionId, validUntil: Math.ceil((until + CLOCK_SKEW_MS) / 1000) };
}
