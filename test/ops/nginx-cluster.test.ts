/**
 * docs/nginx/cluster.conf, as the docs give it, run by Debian's nginx in front of two Parley
 * nodes (their own processes, on one PostgreSQL database and one Redis): what a client polls
 * through the proxy, from whichever node nginx picks, carries what was sent through either.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { HOST, OWNER_EMAIL, OWNER_PASSWORD, basic, createPgDatabase } from '../helpers/app.js';
import { clusterUnavailable } from '../helpers/cluster.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startNodeProcess, type NodeProcess } from '../helpers/node-process.js';
import { freePort } from '../helpers/pg.js';
import { until } from '../helpers/until.js';
import { documentedSite, findNginx, nginxDir, request, selfSignedCertificate, startNginx, type Answer, type Nginx } from '../helpers/nginx.js';

const NGINX = findNginx();
const skip = clusterUnavailable() ?? (NGINX ? undefined : 'no nginx on this machine (apt-get install nginx)');
if (skip) console.log(`# skipped: ${skip}`);

let redis: RedisServer;
let nodes: NodeProcess[] = [];
let nginx: Nginx;
let ca: Buffer;
let base: string;
let auth: string;
let ownerId: number;

before(async () => {
  if (skip) return;
  const dir = nginxDir();
  const cert = selfSignedCertificate(dir, HOST);
  ca = cert.pem;
  redis = await startRedis();
  const databaseUrl = await createPgDatabase();
  const env = { PARLEY_EXTERNAL_URL: `https://${HOST}`, PARLEY_TRUST_PROXY: '127.0.0.1' };
  // One after the other: both would otherwise create the default organization at once.
  nodes.push(await startNodeProcess(databaseUrl, redis.url, env));
  nodes.push(await startNodeProcess(databaseUrl, redis.url, env));
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const site = documentedSite('cluster.conf', [
    ...nodes.map((n) => `server ${new URL(n.url).host};`),
    `listen 127.0.0.1:${httpPort};`,
    `listen 127.0.0.1:${httpsPort} ssl;`,
    `ssl_certificate ${cert.cert};`,
    `ssl_certificate_key ${cert.key};`,
  ]);
  nginx = await startNginx(NGINX!, dir, site, httpsPort);
  base = `https://127.0.0.1:${httpsPort}`;
  const key = await call(base, 'POST', '/api/v1/fetch_api_key', { username: OWNER_EMAIL, password: OWNER_PASSWORD }, false);
  assert.equal(key.status, 200, key.text);
  auth = basic(OWNER_EMAIL, JSON.parse(key.text).api_key);
  ownerId = JSON.parse((await call(base, 'GET', '/api/v1/users/me')).text).user_id;
});
after(async () => {
  if (skip) return;
  await nginx?.stop();
  for (const n of nodes) await n.stop();
  await redis?.stop();
  if (nginx) fs.rmSync(nginx.dir, { recursive: true, force: true });
  nodes = [];
});

/** A request to nginx (https, the test's certificate) or straight to a node (http). */
function call(to: string, method: string, path: string, params: Record<string, string> = {}, authed = true): Promise<Answer> {
  const form = new URLSearchParams(params).toString();
  const get = method === 'GET';
  return request(`${to}${path}${get && form ? `?${form}` : ''}`, HOST, {
    method, ca,
    headers: { ...(authed ? { authorization: auth } : {}), ...(get ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
    ...(get ? {} : { body: form }),
  });
}

test('messages sent through either node reach a queue polled through nginx, whichever node answers each poll', { skip }, async () => {
  const reg = await call(base, 'POST', '/api/v1/register', { event_types: '["message"]' });
  assert.equal(reg.status, 200, reg.text);
  const queueId = String(JSON.parse(reg.text).queue_id);
  let last = -1;
  for (let i = 0; i < 4; i++) {
    // The poll is held on the node nginx picks (round robin); the message goes straight to
    // one node, so it crosses the cluster's bus whenever nginx picked the other one.
    const poll = call(base, 'GET', '/api/v1/events', { queue_id: queueId, last_event_id: String(last) });
    const content = `message ${i} through node ${i % 2}`;
    const sent = await call(nodes[i % 2]!.url, 'POST', '/api/v1/messages', { type: 'private', to: JSON.stringify([ownerId]), content });
    assert.equal(sent.status, 200, sent.text);
    const got = await poll;
    assert.equal(got.status, 200, `${got.text}\n${nginx.errorLog()}`);
    const events = JSON.parse(got.text).events as { id: number; type: string; message?: { content: string } }[];
    assert.deepEqual(events.map((e) => [e.id, e.type]), [[last + 1, 'message']], got.text);
    assert.match(events[0]!.message!.content, new RegExp(content));
    last = events[0]!.id;
  }
  // nginx spread the polls over both nodes: its access log names the upstream of each.
  // (nginx logs a request just after its answer: the last one may take a moment.)
  const both = nodes.map((n) => new URL(n.url).host).sort();
  const polledAt = () => [...new Set(nginx.accessLog().filter((l) => l.request.startsWith('GET /api/v1/events')).map((l) => l.upstream))].sort();
  await until(() => JSON.stringify(polledAt()) === JSON.stringify(both), { message: () => `polls on ${both.join(' and ')}, not only ${polledAt().join(', ')}` });
});
