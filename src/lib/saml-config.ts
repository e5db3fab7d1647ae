import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { SamlAttributeNames, SamlConfig, SamlIdpConfig, SamlSpConfig } from './sso-config.js';
import { certificatePem, parseIdpMetadata } from './saml-metadata.js';

/**
 * PARLEY_SAML_IDPS: a JSON file, read and checked once at start (a mistake stops the server
 * with the key at fault, rather than a button that cannot work). Relative paths in it are
 * relative to the file. Zulip's SOCIAL_AUTH_SAML_* settings, keys as Zulip names them:
 *
 *   { "sp": { "entity_id": "https://chat.example.com",          (default: PARLEY_EXTERNAL_URL)
 *             "private_key": "sp.key", "certificate": "sp.crt", (optional: sign AuthnRequests)
 *             "want_response_signed": false },                   (optional: the Response signed too)
 *     "idps": { "<name>": {
 *         "display_name": "Okta", "display_icon": "https://...", "auto_signup": false,
 *         "entity_id": "...", "url": "<SSO URL, HTTP-Redirect>", "x509cert": "..." | "x509cert_path": "idp.crt",
 *           or instead of those three: "metadata_url": "https://..." | "metadata_file": "idp.xml",
 *         "attr_email": "email", "attr_first_name": "first_name", "attr_last_name": "last_name",
 *         "attr_full_name": null } } }
 */
const IDP_KEYS = new Set(['display_name', 'display_icon', 'auto_signup', 'entity_id', 'url', 'x509cert', 'x509cert_path', 'metadata_url',
  'metadata_file', 'attr_email', 'attr_first_name', 'attr_last_name', 'attr_full_name', 'attr_user_permanent_id', 'attr_username']);
const SP_KEYS = new Set(['entity_id', 'private_key', 'certificate', 'want_response_signed']);

type Entry = Record<string, unknown>;

export function readSamlConfig(file: string): SamlConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`PARLEY_SAML_IDPS: cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  if (typeof doc !== 'object' || doc === null) throw new Error(`PARLEY_SAML_IDPS: ${file} is not a JSON object`);
  const { sp = {}, idps } = doc as { sp?: unknown; idps?: unknown };
  if (typeof sp !== 'object' || sp === null) throw new Error(`PARLEY_SAML_IDPS: "sp" in ${file} is not an object`);
  if (typeof idps !== 'object' || idps === null || Object.keys(idps).length === 0) throw new Error(`PARLEY_SAML_IDPS: ${file} names no "idps"`);
  const dir = path.dirname(path.resolve(file));
  const list = Object.entries(idps as Record<string, unknown>).map(([name, entry]) => readIdp(name, entry, dir));
  return { file, idps: list, sp: readSp(sp as Entry, dir) };
}

/** A checker of one object's keys, its messages naming where the key is. */
function fields(e: Entry, where: string, known: Set<string>) {
  const unknown = Object.keys(e).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new Error(`${where}: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}`);
  const str = (k: string): string | null => {
    const v = e[k];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string' || v.trim() === '') throw new Error(`${where}: "${k}" must be a non-empty string`);
    return v.trim();
  };
  const bool = (k: string): boolean => {
    const v = e[k];
    if (v === undefined) return false;
    if (typeof v !== 'boolean') throw new Error(`${where}: "${k}" must be true or false`);
    return v;
  };
  const httpUrl = (k: string): string | null => {
    const v = str(k);
    if (v === null) return null;
    let u: URL | undefined;
    try {
      u = new URL(v);
    } catch {
      // reported below
    }
    if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:')) throw new Error(`${where}: "${k}" must be an http(s) URL, got '${v}'`);
    return v;
  };
  return { str, bool, httpUrl };
}

function readFile(dir: string, p: string, what: string): string {
  const full = path.resolve(dir, p);
  try {
    return fs.readFileSync(full, 'utf8');
  } catch (err) {
    throw new Error(`${what}: cannot read ${full}: ${(err as Error).message}`, { cause: err });
  }
}

function readSp(sp: Entry, dir: string): SamlSpConfig {
  const where = 'PARLEY_SAML_IDPS "sp"';
  const f = fields(sp, where, SP_KEYS);
  const keyPath = f.str('private_key');
  const certPath = f.str('certificate');
  if ((keyPath === null) !== (certPath === null)) throw new Error(`${where}: "private_key" and "certificate" go together (the IdP checks the signature with the certificate)`);
  let privateKey: string | null = null;
  let certificate: string | null = null;
  if (keyPath !== null && certPath !== null) {
    privateKey = readFile(dir, keyPath, `${where} "private_key"`);
    try {
      crypto.createPrivateKey(privateKey);
    } catch (err) {
      throw new Error(`${where}: "private_key" ${keyPath} is not a PEM private key (${(err as Error).message})`, { cause: err });
    }
    certificate = certificatePem(readFile(dir, certPath, `${where} "certificate"`), `${where} "certificate"`);
  }
  return { entityId: f.str('entity_id'), privateKey, certificate, wantResponseSigned: f.bool('want_response_signed') };
}

function readIdp(name: string, entry: unknown, dir: string): SamlIdpConfig {
  if (!/^[a-z0-9_-]{1,40}$/.test(name)) throw new Error(`PARLEY_SAML_IDPS: IdP name '${name}' must be lowercase letters, digits, _ or - (it is part of a URL)`);
  if (typeof entry !== 'object' || entry === null) throw new Error(`PARLEY_SAML_IDPS: IdP '${name}' is not an object`);
  const e = entry as Entry;
  const where = `PARLEY_SAML_IDPS IdP '${name}'`;
  const f = fields(e, where, IDP_KEYS);
  const attrs: SamlAttributeNames = {
    email: f.str('attr_email') ?? 'email',
    fullName: f.str('attr_full_name'),
    firstName: f.str('attr_first_name') ?? 'first_name',
    lastName: f.str('attr_last_name') ?? 'last_name',
  };
  return {
    name,
    displayName: f.str('display_name') ?? 'SAML',
    icon: f.httpUrl('display_icon'),
    autoSignup: f.bool('auto_signup'),
    endpoint: readEndpoint(e, f, where, dir),
    attrs,
    settings: e,
  };
}

function readEndpoint(e: Entry, f: ReturnType<typeof fields>, where: string, dir: string): SamlIdpConfig['endpoint'] {
  const entityId = f.str('entity_id');
  const metadataUrl = f.httpUrl('metadata_url');
  const metadataFile = f.str('metadata_file');
  const explicit = ['url', 'x509cert', 'x509cert_path'].filter((k) => e[k] !== undefined);
  if (metadataUrl !== null || metadataFile !== null) {
    if (metadataUrl !== null && metadataFile !== null) throw new Error(`${where}: "metadata_url" or "metadata_file", not both`);
    if (explicit.length > 0) throw new Error(`${where}: ${explicit.map((k) => `"${k}"`).join(', ')} come from the metadata; remove them or the metadata`);
    if (metadataUrl !== null) return { metadataUrl, entityId };
    return parseIdpMetadata(readFile(dir, metadataFile!, `${where} "metadata_file"`), entityId, `${where} "metadata_file"`);
  }
  const url = f.httpUrl('url');
  const inline = f.str('x509cert');
  const certPath = f.str('x509cert_path');
  const missing = [entityId === null && '"entity_id"', url === null && '"url"', inline === null && certPath === null && '"x509cert" or "x509cert_path"'].filter(Boolean);
  if (missing.length > 0) throw new Error(`${where}: needs ${missing.join(', ')} (or "metadata_url" / "metadata_file" instead)`);
  if (inline !== null && certPath !== null) throw new Error(`${where}: "x509cert" or "x509cert_path", not both`);
  const cert = inline ?? readFile(dir, certPath!, `${where} "x509cert_path"`);
  return { entityId: entityId!, ssoUrl: url!, certs: [certificatePem(cert, `${where} certificate`)] };
}
