import type { InjectOptions } from 'fastify';
import { encodeParams, HOST, type TestApp } from './app.js';

/** A browser's cookie jar for one organization, as the web app's requests carry it. */
export interface WebSession { cookie: string; csrf: string; userId: number }

export interface WebResult {
  status: number;
  body: any;
  headers: Record<string, unknown>;
  cookies: Array<{ name: string; value: string; httpOnly?: boolean; sameSite?: string; path?: string; secure?: boolean; maxAge?: number; expires?: Date }>;
}

/** A request as the web app makes it: form body, the session cookie, the CSRF header unless `csrf` is null. */
export async function webCall(t: TestApp, method: string, url: string,
  opts: { session?: WebSession | null; csrf?: string | null; params?: Record<string, unknown>; host?: string; headers?: Record<string, string> } = {}): Promise<WebResult> {
  const headers: Record<string, string> = { host: opts.host ?? HOST, ...(opts.headers ?? {}) };
  if (opts.session) headers.cookie = opts.session.cookie;
  const csrf = opts.csrf === undefined ? opts.session?.csrf : opts.csrf;
  if (csrf) headers['x-csrftoken'] = csrf;
  const inject: InjectOptions = { method: method as InjectOptions['method'], url, headers };
  if (opts.params) {
    const enc = encodeParams(opts.params);
    if (method === 'GET') inject.url = `${url}?${enc}`;
    else {
      inject.payload = enc;
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
  }
  const res = await t.app.http.inject(inject);
  let body: unknown;
  try {
    body = res.json();
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, body, headers: res.headers, cookies: res.cookies as WebResult['cookies'] };
}

/** The jar a successful sign-in (or sign-up) answer leaves in a browser. */
export function sessionOf(res: WebResult): WebSession {
  const session = res.cookies.find((c) => c.name === 'parley_session');
  const csrf = res.cookies.find((c) => c.name === 'parley_csrf');
  if (res.status !== 200 || !session || !csrf) throw new Error(`no session in ${res.status} ${JSON.stringify(res.body)}`);
  return { cookie: `parley_session=${session.value}; parley_csrf=${csrf.value}`, csrf: csrf.value, userId: (res.body as { user_id: number }).user_id };
}

export async function signIn(t: TestApp, username: string, password: string, host?: string): Promise<WebSession> {
  return sessionOf(await webCall(t, 'POST', '/accounts/login', { params: { username, password }, ...(host ? { host } : {}) }));
}
