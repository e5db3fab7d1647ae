import crypto from 'node:crypto';
import { parseDocument, DomUtils } from 'htmlparser2';
import type { SamlIdpEndpoint } from './sso-config.js';

/**
 * An identity provider's SAML metadata (an EntityDescriptor, or an EntitiesDescriptor that
 * holds it): its entity id, the HTTP-Redirect single sign-on URL and the signing
 * certificates. Only read for those three values: the signatures of assertions are checked
 * by node-saml against the certificates found here.
 */
type Element = ReturnType<typeof DomUtils.findAll>[number];

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

// Prefixes vary between providers (md:, saml2:, none): elements are matched by local name.
const local = (el: Element) => el.name.slice(el.name.indexOf(':') + 1);
const children = (el: Element, name: string) => el.children.filter((c): c is Element => DomUtils.isTag(c) && local(c) === name);
const descendants = (el: Element, name: string) => DomUtils.findAll((e) => local(e) === name, el.children);

/** `wantedEntityId`: which provider of a federation's metadata (several EntityDescriptors); null takes the only one. */
export function parseIdpMetadata(xml: string, wantedEntityId: string | null, where: string): SamlIdpEndpoint {
  const doc = parseDocument(xml, { xmlMode: true });
  const entities = DomUtils.findAll((e) => local(e) === 'EntityDescriptor' && children(e, 'IDPSSODescriptor').length > 0, doc.children);
  const matching = wantedEntityId === null ? entities : entities.filter((e) => e.attribs.entityID === wantedEntityId);
  if (matching.length === 0) {
    throw new Error(`${where}: no identity provider${wantedEntityId ? ` with entityID ${wantedEntityId}` : ''} (no EntityDescriptor with an IDPSSODescriptor)`);
  }
  if (matching.length > 1) throw new Error(`${where}: several identity providers; set "entity_id" to choose one`);
  const entity = matching[0]!;
  const idp = children(entity, 'IDPSSODescriptor')[0]!;
  const sso = children(idp, 'SingleSignOnService').find((s) => s.attribs.Binding === REDIRECT_BINDING);
  if (!sso?.attribs.Location) throw new Error(`${where}: the identity provider has no SingleSignOnService with the HTTP-Redirect binding`);
  const certs = children(idp, 'KeyDescriptor')
    .filter((k) => k.attribs.use === undefined || k.attribs.use === 'signing')
    .flatMap((k) => descendants(k, 'X509Certificate'))
    .map((c) => certificatePem(DomUtils.textContent(c), where));
  if (certs.length === 0) throw new Error(`${where}: the identity provider publishes no signing certificate`);
  return { entityId: entity.attribs.entityID ?? '', ssoUrl: sso.attribs.Location, certs: [...new Set(certs)] };
}

/**
 * A certificate as PEM, from PEM or from the bare base64 of metadata and provider consoles;
 * refused (with `where` in the message) if it is no X.509 certificate.
 */
export function certificatePem(text: string, where: string): string {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  try {
    new crypto.X509Certificate(pem);
  } catch (err) {
    throw new Error(`${where}: not an X.509 certificate (${(err as Error).message})`, { cause: err });
  }
  return pem;
}
