/**
 * docs/nginx/single-server.conf, as the docs give it, run by Debian's nginx in front of a
 * real Parley process: TLS with a self-signed certificate, long polls past nginx's default
 * 60 s read timeout, uploads at the size limit, and each client's own request budget
 * through X-Forwarded-For and PARLEY_TRUST_PROXY.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ENGINE, HOST, OWNER_EMAIL, OWNER_PASSWORD, basic, createPgDatabase } from '../helpers/app.js';
import { startNodeProcess, type NodeProcess } from '../helpers/node-process.js';
import { freePort } from '../helpers/pg.js';
import {
  documentedSite, findNginx, multipartFile, nginxDir, request, selfSignedCertificate, startNginx,
  type Answer, type Nginx, type RequestOptions,
} from '../helpers/nginx.js';

const MIB = 1024 * 1024;
const NGINX = findNginx();
const skip = NGINX ? undefined : 'no nginx on this machine (apt-get install nginx)';
if (skip) console.log(`# skipped: ${skip}`);

/** Above nginx's default proxy_read_timeout (60 s): what the documented 120 s must outlast. */
const HEARTBEAT_MS = 65_000;
/** Parley's default PARLEY_MAX_FILE_UPLOAD_SIZE_MIB, which the documented client_max_body_size follows. */
const UPLOAD_MIB = 25;
/** A small anonymous budget (Zulip's api_by_ip), so that spending it takes a few requests. */
const IP_BUDGET = 3;

let parley: NodeProcess;
let nginx: Nginx;
let ca: Buffer;
let base: string;
let plainBase: string;
let ownerAuth: string;

before(async () => {
  if (skip) return;
  const dir = nginxDir();
  const cert = selfSignedCertificate(dir, HOST);
  ca = cert.pem;
  const databaseUrl = ENGINE === 'postgres' ? await createPgDatabase() : '';
  parley = await startNodeProcess(databaseUrl, '', {
    PARLEY_EXTERNAL_URL: `https://${HOST}`,
    PARLEY_TRUST_PROXY: '127.0.0.1',
    PARLEY_HEARTBEAT_MS: String(HEARTBEAT_MS),
    PARLEY_MAX_FILE_UPLOAD_SIZE_MIB: String(UPLOAD_MIB),
    PARLEY_RATE_LIMITING: 'true',
    PARLEY_RATE_LIMITS: `api_by_ip=600:${IP_BUDGET}`,
  });
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const site = documentedSite('single-server.conf', [
    `server ${new URL(parley.url).host};`,
    `listen 127.0.0.1:${httpPort};`,
    `listen 127.0.0.1:${httpsPort} ssl;`,
    `ssl_certificate ${cert.cert};`,
    `ssl_certificate_key ${cert.key};`,
  ]);
  nginx = await startNginx(NGINX!, dir, site, httpsPort);
  base = `https://127.0.0.1:${httpsPort}`;
  plainBase = `http://127.0.0.1:${httpPort}`;
  // From an address of its own: fetch_api_key is anonymous and spends that address's budget.
  const key = await proxied('POST', '/api/v1/fetch_api_key', { form: { username: OWNER_EMAIL, password: OWNER_PASSWORD }, localAddress: '127.0.0.9' });
  assert.equal(key.status, 200, key.text);
  ownerAuth = basic(OWNER_EMAIL, JSON.parse(key.text).api_key);
});
after(async () => {
  if (skip) return;
  await nginx?.stop();
  await parley?.stop();
  if (nginx) fs.rmSync(nginx.dir, { recursive: true, force: true });
});

/** A request through nginx over HTTPS, trusting only the test's certificate. */
function proxied(method: string, path: string, opts: RequestOptions & { form?: Record<string, string> } = {}): Promise<Answer> {
  const headers = { ...(opts.headers ?? {}) };
  let body = opts.body;
  if (opts.form) {
    body = new URLSearchParams(opts.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  return request(`${base}${path}`, HOST, { ...opts, method, headers, body, ca });
}

const json = (a: Answer): Record<string, unknown> => JSON.parse(a.text) as Record<string, unknown>;

/** Signs in to the web app through nginx: its cookies, and the header the CSRF check reads. */
async function signIn(): Promise<{ setCookies: string[]; cookie: string; csrf: string }> {
  const res = await proxied('POST', '/accounts/login', { form: { username: OWNER_EMAIL, password: OWNER_PASSWORD } });
  assert.equal(res.status, 200, res.text);
  const setCookies = res.headers['set-cookie'] ?? [];
  const pairs = setCookies.map((c) => c.split(';')[0]!);
  const csrf = pairs.find((p) => p.startsWith('parley_csrf='))?.slice('parley_csrf='.length);
  assert.ok(csrf, `a CSRF cookie among ${setCookies.join(' | ')}`);
  return { setCookies, cookie: pairs.join('; '), csrf };
}

test('TLS: nginx serves the certificate it was given, and plain HTTP only redirects to HTTPS', { skip }, async () => {
  const settings = await proxied('GET', '/api/v1/server_settings', { localAddress: '127.0.0.8' });
  assert.equal(settings.status, 200, settings.text);
  assert.equal(json(settings).realm_uri, `https://${HOST}`);
  // The client trusts only the test's certificate: a handshake that did not present it fails.
  await assert.rejects(request(`${base}/api/v1/server_settings`, HOST, { localAddress: '127.0.0.8' }), /self-signed|certificate/i);
  const plain = await request(`${plainBase}/login/?next=x`, HOST);
  assert.equal(plain.status, 301);
  assert.equal(plain.headers.location, `https://${HOST}/login/?next=x`);
});

test('the web sign-in through nginx sets Secure cookies', { skip }, async () => {
  const { setCookies } = await signIn();
  for (const name of ['parley_session', 'parley_csrf']) {
    const c = setCookies.find((x) => x.startsWith(`${name}=`));
    assert.ok(c, `${name} among ${setCookies.join(' | ')}`);
    assert.match(c, /;\s*Secure\b/i, `${name} is Secure: ${c}`);
  }
});

test('long polls held past 60 s, by the API and by the web app, end with a heartbeat, not a 504', { skip }, async () => {
  const reg = await proxied('POST', '/api/v1/register', { form: { event_types: '["message"]' }, headers: { authorization: ownerAuth } });
  assert.equal(reg.status, 200, reg.text);
  const web = await signIn();
  const webReg = await proxied('POST', '/json/register', { form: { event_types: '["message"]' }, headers: { cookie: web.cookie, 'x-csrftoken': web.csrf } });
  assert.equal(webReg.status, 200, webReg.text);
  const poll = async (path: string, queueId: unknown, headers: Record<string, string>): Promise<{ res: Answer; ms: number }> => {
    const started = Date.now();
    const res = await proxied('GET', `${path}?${new URLSearchParams({ queue_id: String(queueId), last_event_id: '-1' })}`, { headers });
    return { res, ms: Date.now() - started };
  };
  const [api, page] = await Promise.all([
    poll('/api/v1/events', json(reg).queue_id, { authorization: ownerAuth }),
    poll('/json/events', json(webReg).queue_id, { cookie: web.cookie }),
  ]);
  for (const [name, { res, ms }] of [['/api/v1/events', api], ['/json/events', page]] as const) {
    assert.equal(res.status, 200, `${name} after ${ms} ms: ${res.status} ${res.text.slice(0, 200)}\n${nginx.errorLog()}`);
    assert.ok(ms >= 60_000, `${name} was held past 60 s (${ms} ms)`);
    const events = json(res).events as { type: string }[];
    assert.deepEqual(events.map((e) => e.type), ['heartbeat'], res.text);
  }
});

test('uploads: a file at the limit passes, a larger one gets Parley\'s answer, a body past nginx\'s limit the same message', { skip }, async () => {
  const upload = (body: Buffer, contentType: string) => proxied('POST', '/api/v1/user_uploads', { body, headers: { authorization: ownerAuth, 'content-type': contentType } });
  const atLimit = multipartFile('at-limit.bin', Buffer.alloc(UPLOAD_MIB * MIB, 1));
  const ok = await upload(atLimit.body, atLimit.contentType);
  assert.equal(ok.status, 200, ok.text);
  assert.match(String(json(ok).uri), /^\/user_uploads\/.*at-limit\.bin$/);

  // The body exactly at client_max_body_size (the file past Parley's limit): nginx lets it
  // through, and Parley answers in its own words.
  const wrapping = multipartFile('over.bin', Buffer.alloc(0)).body.length;
  const over = multipartFile('over.bin', Buffer.alloc((UPLOAD_MIB + 1) * MIB - wrapping, 1));
  assert.equal(over.body.length, (UPLOAD_MIB + 1) * MIB);
  const refused = await upload(over.body, over.contentType);
  assert.equal(refused.status, 400, refused.text);
  const message = `Uploaded file is larger than the allowed limit of ${UPLOAD_MIB} MiB`;
  assert.deepEqual(json(refused), { result: 'error', msg: message, code: 'BAD_REQUEST' });

  // One byte more: nginx refuses it from the declared length, before Parley sees it, with
  // the status and JSON Parley gives the same request (its own body limit is the same).
  const declared = { authorization: ownerAuth, 'content-type': over.contentType, 'content-length': (UPLOAD_MIB + 1) * MIB + 1 };
  const byNginx = await proxied('POST', '/api/v1/user_uploads', { headers: declared });
  const byParley = await request(`${parley.url}/api/v1/user_uploads`, HOST, { method: 'POST', headers: declared });
  assert.equal(byNginx.status, 413, byNginx.text);
  assert.equal(byParley.status, 413, byParley.text);
  assert.match(String(byNginx.headers['content-type']), /^application\/json/);
  assert.deepEqual(json(byNginx), json(byParley));
  assert.equal(json(byNginx).msg, message);
});

test('each client address has its own request budget through nginx, and a forged X-Forwarded-For changes nothing', { skip }, async () => {
  const settings = (localAddress: string, headers: Record<string, string> = {}) => proxied('GET', '/api/v1/server_settings', { localAddress, headers });
  for (let i = 0; i < IP_BUDGET; i++) assert.equal((await settings('127.0.0.2')).status, 200);
  const spent = await settings('127.0.0.2');
  assert.equal(spent.status, 429, spent.text);
  assert.equal(json(spent).code, 'RATE_LIMIT_HIT');
  // Another client (another source address, which nginx passes on) has its whole budget.
  for (let i = 0; i < IP_BUDGET - 1; i++) assert.equal((await settings('127.0.0.3')).status, 200);
  // The same address on a new connection shares its budget: a 429 again.
  assert.equal((await settings('127.0.0.2')).status, 429);
  // A client naming another address in X-Forwarded-For is still counted as itself: nginx
  // appends the address it saw, and Parley believes only what its trusted proxy added.
  assert.equal((await settings('127.0.0.3', { 'x-forwarded-for': '127.0.0.77' })).status, 200);
  assert.equal((await settings('127.0.0.3', { 'x-forwarded-for': '127.0.0.78' })).status, 429);
});
