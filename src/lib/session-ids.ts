import crypto from 'node:crypto';

/** A new session id for the cookie (256 random bits) and the CSRF token that goes with it. */
export function newSessionSecrets(): { id: string; csrfToken: string } {
  return { id: crypto.randomBytes(32).toString('base64url'), csrfToken: crypto.randomBytes(24).toString('base64url') };
}

/** What the store keeps of a session id: its SHA-256, so that a copy of the database signs nobody in. */
export function sessionIdHash(id: string): string {
  return crypto.createHash('sha256').update(id).digest('hex');
}
