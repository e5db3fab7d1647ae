/**
 * A SAML identity provider in the test process: samlify acting as IdP, with keys and
 * certificates made by the openssl CLI for the run. It reads the AuthnRequest Parley
 * redirects to it (checking the request's signature when told the SP signs), and answers
 * with a Response for Parley's assertion consumer, signed as Parley's SP metadata asks; the
 * tests bend one thing at a time (audience, validity, signer, assertion id) to see it refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as samlifyModule from 'samlify';
import * as xmllint from '@authenio/samlify-node-xmllint';
import { scratchDir } from '../helpers/scratch.js';

// samlify is CommonJS: Node's named exports miss a few (SamlLib), its default export has them all.
const samlify = (samlifyModule as unknown as { default?: typeof samlifyModule }).default ?? samlifyModule;
samlify.setSchemaValidator(xmllint);

export interface KeyPair { key: string; cert: string; keyFile: string; certFile: string }

/** A fresh RSA key and a self-signed certificate for it, as files in `dir` and as PEM. */
export function makeKeyPair(dir: string, name: string): KeyPair {
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.crt`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', `/CN=${name}`,
    '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), keyFile, certFile };
}

export const tempDir = (): string => scratchDir('parley-saml-');

export const IDP_ENTITY_ID = 'https://idp.example.test/metadata';
export const IDP_SSO_URL = 'https://idp.example.test/sso';

/** What a test may change in one Response. */
export interface ResponseBends {
  audience?: string;
  /** Minutes from now: when the assertion (and its subject confirmation) stops being valid. */
  validForMinutes?: number;
  issuedMinutesAgo?: number;
  assertionId?: string;
  inResponseTo?: string;
  issuer?: string;
  /** Sign with another key than the one Parley trusts. */
  signer?: KeyPair;
  /** No signature anywhere. */
  unsigned?: boolean;
  /** Sign the Response but not the assertion inside. */
  onlyResponseSigned?: boolean;
  attributes?: Record<string, string>;
}

export interface SamlRequestSeen { id: string; relayState: string; acsUrl: string; signed: boolean }

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export class TestIdp {
  constructor(readonly keys: KeyPair, private readonly spMetadata: string, private readonly spSigns = false) {}

  private idp(signer: KeyPair = this.keys) {
    return samlify.IdentityProvider({
      entityID: IDP_ENTITY_ID, privateKey: signer.key, signingCert: signer.cert, isAssertionEncrypted: false,
      wantAuthnRequestsSigned: this.spSigns,
      singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: IDP_SSO_URL }],
      nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
      singleLogoutService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: `${IDP_SSO_URL}/logout` }],
    });
  }

  private sp(metadata = this.spMetadata) {
    return samlify.ServiceProvider({ metadata });
  }

  /** The IdP's metadata, as an administrator would download it for Parley. */
  metadataXml(): string {
    return this.idp().getMetadata();
  }

  /** The redirect Parley answered a sign-in button with, read as the IdP reads it. */
  async readRequest(location: string): Promise<SamlRequestSeen> {
    const url = new URL(location);
    if (`${url.origin}${url.pathname}` !== IDP_SSO_URL) throw new Error(`not a redirect to the IdP: ${location}`);
    const query = Object.fromEntries(url.searchParams);
    // The signed octet string is the query as sent, in the binding's order (saml-bindings 3.4.4.1).
    const octetString = url.search.slice(1).split('&').filter((p) => !p.startsWith('Signature=')).join('&');
    const { extract } = await this.idp().parseLoginRequest(this.sp(), 'redirect', { query, octetString });
    const request = extract.request as Record<string, string>;
    return { id: request.id!, relayState: query.RelayState ?? '', acsUrl: request.assertionConsumerServiceUrl!, signed: 'Signature' in query };
  }

  /** A base64 SAMLResponse answering `req` for `email`. */
  async respond(req: Pick<SamlRequestSeen, 'id' | 'acsUrl'>, email: string, bends: ResponseBends = {}): Promise<string> {
    const now = Date.now() - (bends.issuedMinutesAgo ?? 0) * 60_000;
    const until = new Date(Date.now() + (bends.validForMinutes ?? 5) * 60_000).toISOString();
    const attributes = bends.attributes ?? { email, first_name: 'Sam', last_name: 'Ell' };
    const attributeStatement = `<saml:AttributeStatement>${Object.entries(attributes).map(([name, value]) =>
      `<saml:Attribute Name="${esc(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic"><saml:AttributeValue xsi:type="xs:string">${esc(value)}</saml:AttributeValue></saml:Attribute>`).join('')}</saml:AttributeStatement>`;
    const authn = `<saml:AuthnStatement AuthnInstant="${new Date(now).toISOString()}" SessionIndex="_s${crypto.randomBytes(8).toString('hex')}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`;
    const values = {
      ID: `_r${crypto.randomBytes(16).toString('hex')}`,
      AssertionID: bends.assertionId ?? `_a${crypto.randomBytes(16).toString('hex')}`,
      Destination: req.acsUrl, SubjectRecipient: req.acsUrl,
      Audience: bends.audience ?? this.spEntityId(),
      Issuer: bends.issuer ?? IDP_ENTITY_ID,
      IssueInstant: new Date(now).toISOString(),
      StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
      ConditionsNotBefore: new Date(now).toISOString(), ConditionsNotOnOrAfter: until, SubjectConfirmationDataNotOnOrAfter: until,
      NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', NameID: email,
      InResponseTo: bends.inResponseTo ?? req.id,
    };
    const xmlParts: Record<string, string> = { AuthnStatement: authn, AttributeStatement: attributeStatement };
    // samlify's replaceTagsByValue escapes every value; the two statements are XML.
    const fill = (template: string) => ({
      id: values.ID,
      context: template.replace(/\{(\w+)\}/g, (_, k: string) => xmlParts[k] ?? esc(String((values as Record<string, string>)[k] ?? ''))),
    });
    if (bends.unsigned) return Buffer.from(fill(samlify.SamlLib.defaultLoginResponseTemplate.context).context).toString('base64');
    // samlify signs the assertion when the SP's metadata asks for it, else the whole Response.
    const sp = bends.onlyResponseSigned ? this.sp(this.spMetadata.replace(/WantAssertionsSigned="true"/, 'WantAssertionsSigned="false"')) : this.sp();
    const res = await this.idp(bends.signer).createLoginResponse(sp, { extract: { request: { id: req.id } } }, 'post', { email }, { customTagReplacement: fill });
    return res.context;
  }

  spEntityId(): string {
    return /entityID="([^"]+)"/.exec(this.spMetadata)![1]!;
  }
}
