import fs from 'node:fs';
import type { SamlConfig, SamlIdpConfig } from './sso-config.js';

/**
 * PARLEY_SAML_IDPS: a JSON file, read once at start.
 *   { "sp": { ... }, "idps": { "<name>": { "display_name": "...", "display_icon": "...", "auto_signup": false, ... } } }
 * The SAML module (src/sso/saml.ts) reads the rest of each entry.
 */
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
  const list: SamlIdpConfig[] = Object.entries(idps as Record<string, unknown>).map(([name, entry]) => {
    if (!/^[a-z0-9_-]{1,40}$/.test(name)) throw new Error(`PARLEY_SAML_IDPS: IdP name '${name}' must be lowercase letters, digits, _ or - (it is part of a URL)`);
    if (typeof entry !== 'object' || entry === null) throw new Error(`PARLEY_SAML_IDPS: IdP '${name}' is not an object`);
    const e = entry as Record<string, unknown>;
    const str = (k: string) => (typeof e[k] === 'string' && e[k] !== '' ? e[k] as string : null);
    return { name, displayName: str('display_name') ?? 'SAML', icon: str('display_icon'), autoSignup: e.auto_signup === true, settings: e };
  });
  return { file, idps: list, sp: sp as Record<string, unknown> };
}
