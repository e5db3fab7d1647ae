/**
 * One HTTP call to Zulip's push notification service, with Zulip's send_to_push_bouncer
 * error classes (zerver/lib/remote_server.py): a network failure, a timeout or a 5xx may
 * succeed later; 401/403 or INVALID_ZULIP_SERVER say this server's credentials are refused
 * (not registered yet, or a wrong key), also worth retrying while an administrator fixes
 * them; another 4xx is the service's answer (a token it never had) and is final.
 */

export interface BouncerCredentials {
  orgId: string;
  orgKey: string;
}

/** What a call sends: form fields (Zulip's send_to_push_bouncer with a dict) or a JSON body. */
export type BouncerBody = { form: Record<string, string> } | { json: unknown };

export type BouncerFailure = 'network' | 'server' | 'credentials' | 'refused' | 'unexpected';

export class BouncerError extends Error {
  constructor(readonly failure: BouncerFailure, message: string, readonly status?: number) {
    super(message);
  }

  /** Whether trying again later may succeed. */
  get retryable(): boolean {
    return this.failure === 'network' || this.failure === 'server' || this.failure === 'credentials';
  }
}

/** Parley's equivalent of Zulip's `ZulipServer/<version>` user agent. */
const USER_AGENT = 'ZulipServer/10.1 (Parley)';

export async function callBouncer(
  baseUrl: string, endpoint: string, body: BouncerBody, auth: BouncerCredentials | null, timeoutMs: number, signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const url = new URL(`/api/v1/remotes/${endpoint}`, baseUrl).toString();
  const headers: Record<string, string> = { 'user-agent': USER_AGENT };
  if (auth) headers.authorization = `Basic ${Buffer.from(`${auth.orgId}:${auth.orgKey}`).toString('base64')}`;
  let payload: string;
  if ('form' in body) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(body.form).toString();
  } else {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { method: 'POST', headers, body: payload, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    text = await res.text();
  } catch (err) {
    const what = timeout.aborted ? 'Timeout' : (err as Error).name === 'AbortError' ? 'Aborted' : 'ConnectionError';
    throw new BouncerError('network', `${what} while trying to connect to push notification bouncer`);
  }
  if (res.status >= 500) throw new BouncerError('server', `Received ${res.status} from push notification bouncer`, res.status);
  if (res.status >= 400) {
    let parsed: { msg?: unknown; code?: unknown } = {};
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      /* an answer that is not Zulip's JSON error: classed by its status alone */
    }
    const msg = typeof parsed.msg === 'string' ? parsed.msg : `status ${res.status}`;
    if (res.status === 401 || res.status === 403 || parsed.code === 'INVALID_ZULIP_SERVER') {
      throw new BouncerError('credentials', `Push notifications bouncer error: ${msg}`, res.status);
    }
    throw new BouncerError('refused', msg, res.status);
  }
  if (res.status !== 200) throw new BouncerError('unexpected', `Push notification bouncer returned unexpected status code ${res.status}`, res.status);
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? parsed as Record<string, unknown> : {};
  } catch {
    throw new BouncerError('unexpected', 'Push notification bouncer returned an answer that is not JSON', res.status);
  }
}
