/**
 * The app's only door to the server: the API's handlers under /json, authenticated by the
 * session cookie, with the session's CSRF token (the parley_csrf cookie) in X-CSRFToken on
 * every call that is not a GET. The API key never reaches this page.
 */
import { t } from './i18n';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The request never got an answer (offline, server down, proxy error page): retry later. */
export class NetworkError extends Error {}

export type Params = Record<string, unknown>;

export function csrfToken(): string {
  const m = /(?:^|;\s*)parley_csrf=([^;]*)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]!) : '';
}

/** Zulip's parameter encoding: free text raw, everything else JSON (booleans, lists, objects). */
export function encodeParams(params: Params): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return out;
}

export async function call<T = unknown>(method: string, path: string, params: Params = {}, opts: { signal?: AbortSignal; prefix?: string } = {}): Promise<T> {
  const body = encodeParams(params);
  let url = `${opts.prefix ?? '/json'}${path}`;
  const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json' }, signal: opts.signal };
  if (method === 'GET') {
    const q = body.toString();
    if (q) url += `?${q}`;
  } else {
    init.body = body;
    (init.headers as Record<string, string>)['X-CSRFToken'] = csrfToken();
  }
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new NetworkError(t('Could not reach the server.'), { cause: e });
  }
  let json: { result?: string; msg?: string; code?: string } | null;
  try {
    json = (await res.json()) as typeof json;
  } catch {
    // A 502 from a proxy or a server mid-restart: not the API speaking.
    throw new NetworkError(t('The server answered with an error (HTTP {status}).', { status: res.status }));
  }
  if (res.status >= 500) throw new NetworkError(json?.msg ?? t('The server answered with an error (HTTP {status}).', { status: res.status }));
  if (json?.result !== 'success') throw new ApiError(res.status, json?.code ?? 'BAD_REQUEST', json?.msg ?? t('The server answered with an error (HTTP {status}).', { status: res.status }), json ?? {});
  return json as unknown as T;
}

export const get = <T = unknown>(path: string, params?: Params, opts?: { signal?: AbortSignal }) => call<T>('GET', path, params, opts);
export const post = <T = unknown>(path: string, params?: Params) => call<T>('POST', path, params);
export const patch = <T = unknown>(path: string, params?: Params) => call<T>('PATCH', path, params);
export const del = <T = unknown>(path: string, params?: Params) => call<T>('DELETE', path, params);

/** Sign-in and sign-out live outside /json (the contract's /accounts routes). */
export const login = (username: string, password: string) => call<{ user_id: number }>('POST', '/accounts/login', { username, password }, { prefix: '' });
export const logout = () => call('POST', '/accounts/logout', {}, { prefix: '' });
