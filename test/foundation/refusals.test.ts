import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { testApp, basic, HOST, type TestApp } from '../helpers/app.js';
import { clientErrorRefusal, onClientError } from '../../src/http/refusals.js';
import { MAX_BODY_BYTES } from '../../src/http/body-limits.js';
import { createServer } from '../../src/http/longpoll.js';

/**
 * Every refusal that Node or Fastify would answer in its own shape comes in the API's:
 * {result: "error", msg, code}, with a fitting status. Raw sockets, since most of these
 * requests are ones no HTTP client would send.
 */
let t: TestApp;
let port: number;

before(async () => {
  t = await testApp();
  port = Number(new URL(await t.listen()).port);
});
after(() => t.close());

/** Sends `data` on a fresh connection and reads until the server closes it or an answer is complete. */
function raw(data: string | Buffer): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let out = Buffer.alloc(0);
    const done = () => {
      const text = out.toString('utf8');
      const sep = text.indexOf('\r\n\r\n');
      if (sep < 0) return false;
      const head = text.slice(0, sep);
      const len = /content-length:\s*(\d+)/i.exec(head);
      const body = text.slice(sep + 4);
      if (!len || Buffer.byteLength(body) < Number(len[1])) return false;
      s.destroy();
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
      return true;
    };
    s.on('data', (d) => {
      out = Buffer.concat([out, d]);
      done();
    });
    s.on('close', () => {
      if (!done()) reject(new Error(`closed without a whole answer: ${JSON.stringify(out.toString())}`));
    });
    s.on('error', () => {});
    s.write(data);
  });
}

function assertShape(r: { status: number; body: string }, status: number, code: string, msg?: string | RegExp): void {
  assert.equal(r.status, status, r.body);
  const json = JSON.parse(r.body) as { result: string; msg: string; code: string };
  assert.equal(json.result, 'error');
  assert.equal(json.code, code);
  assert.equal(typeof json.msg, 'string');
  if (typeof msg === 'string') assert.equal(json.msg, msg);
  else if (msg) assert.match(json.msg, msg);
}

const req = (head: string, body = '') => `${head}\r\nHost: ${HOST}\r\n${body ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`;

test('a malformed JSON body: 400 INVALID_JSON "Malformed JSON"', async () => {
  const r = await raw(`POST /api/v1/messages HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{bad}`);
  assertShape(r, 400, 'INVALID_JSON', 'Malformed JSON');
});

test('a request line Node cannot parse: 400 in the API shape', async () => {
  assertShape(await raw('GARBAGE\r\n\r\n'), 400, 'BAD_REQUEST', 'Bad request');
});

test('an invalid Content-Length: 400 in the API shape', async () => {
  assertShape(await raw(`POST /api/v1/messages HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: abc\r\n\r\n`), 400, 'BAD_REQUEST');
});

test('headers past Node\'s limit: 431 in the API shape', async () => {
  const r = await raw(`GET /api/v1/server_settings HTTP/1.1\r\nHost: ${HOST}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  assertShape(r, 431, 'BAD_REQUEST', 'Request header fields too large');
});

test('a path with a broken percent-encoding: 400 "Malformed URL"', async () => {
  assertShape(await raw(req('GET /api/v1/users/%E0%A4%A HTTP/1.1')), 400, 'BAD_REQUEST', 'Malformed URL');
});

test('a form body past the global limit: 413 before it is read, and the connection closes', async () => {
  const r = await raw(`POST /api/v1/messages HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`);
  assertShape(r, 413, 'BAD_REQUEST', 'Request body is larger than the limit of 8 MiB');
  assert.match(r.headers, /connection: close/);
});

test('a chunked form body past the global limit: 413', async () => {
  const chunk = 'a'.repeat(1024 * 1024);
  let body = '';
  for (let i = 0; i < 9; i++) body += `${(chunk.length).toString(16)}\r\n${chunk}\r\n`;
  const r = await raw(`POST /api/v1/messages HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n${body}0\r\n\r\n`);
  assertShape(r, 413, 'BAD_REQUEST');
});

test('an unsupported media type on a JSON-less route is read as text, never a 415 in Fastify\'s shape', async () => {
  const r = await raw(`POST /api/v1/messages HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json; charset=nope\r\nContent-Length: 2\r\n\r\n{}`);
  assert.ok(r.status === 401 || r.status === 415 || r.status === 400, r.body);
  assert.equal(JSON.parse(r.body).result, 'error');
});

const BOUNDARY = 'xBOUNDARYx';
function multipartHead(path: string, length: number | 'chunked', auth?: string): string {
  return `POST ${path} HTTP/1.1\r\nHost: ${HOST}\r\n${auth ? `Authorization: ${auth}\r\n` : ''}Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n`
    + (length === 'chunked' ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`) + '\r\n';
}
const fieldPart = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePartHead = (name: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;

test('multipart with plain fields still works on an ordinary route (zulip-js)', async () => {
  const body = fieldPart('type', 'stream') + fieldPart('to', '"nowhere"') + fieldPart('topic', 't') + fieldPart('content', 'hi') + `--${BOUNDARY}--\r\n`;
  const r = await raw(multipartHead('/api/v1/messages', Buffer.byteLength(body), basic(t.owner.email, t.owner.apiKey)) + body);
  // The fields arrived: the stream was looked up by name.
  assertShape(r, 400, 'STREAM_DOES_NOT_EXIST');
});

test('a file part on a route that takes no file: 400 at its headers, the file unread', async () => {
  // Chunked: no declared length to refuse it by.
  const head = fieldPart('content', 'x') + filePartHead('f') + 'some bytes of the file';
  const r = await raw(multipartHead('/api/v1/messages', 'chunked', basic(t.owner.email, t.owner.apiKey)) + `${Buffer.byteLength(head).toString(16)}\r\n${head}\r\n`);
  assertShape(r, 400, 'BAD_REQUEST', 'This endpoint does not accept file uploads');
  assert.match(r.headers, /connection: close/);
});

test('a multipart body declared past the global limit: 413 unread', async () => {
  const r = await raw(multipartHead('/api/v1/messages', MAX_BODY_BYTES + 1));
  assertShape(r, 413, 'BAD_REQUEST', 'Request body is larger than the limit of 8 MiB');
});

test('a chunked multipart body whose fields pass the global limit: 413', async () => {
  const big = 'a'.repeat(1024 * 1024);
  let body = '';
  for (let i = 0; i < 9; i++) body += fieldPart(`f${i}`, big);
  body += `--${BOUNDARY}--\r\n`;
  const r = await raw(multipartHead('/api/v1/messages', 'chunked') + `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`);
  assertShape(r, 413, 'BAD_REQUEST');
});

test('a multipart field longer than the limit is refused, never cut short', async () => {
  const body = fieldPart('content', 'a'.repeat(MAX_BODY_BYTES + 10)) + `--${BOUNDARY}--\r\n`;
  const r = await raw(multipartHead('/api/v1/messages', 'chunked', basic(t.owner.email, t.owner.apiKey)) + `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`);
  assertShape(r, 413, 'BAD_REQUEST');
});

test('more multipart fields than allowed: 413', async () => {
  let body = '';
  for (let i = 0; i < 1001; i++) body += fieldPart(`f${i}`, '1');
  body += `--${BOUNDARY}--\r\n`;
  const r = await raw(multipartHead('/api/v1/messages', Buffer.byteLength(body)) + body);
  assertShape(r, 413, 'BAD_REQUEST');
});

test('an upload declared past the file limit: 413 with Zulip\'s message, unread', async () => {
  const r = await raw(multipartHead('/api/v1/user_uploads', 26 * 1024 * 1024 + 1, basic(t.owner.email, t.owner.apiKey)));
  assertShape(r, 413, 'BAD_REQUEST', 'Uploaded file is larger than the allowed limit of 25 MiB');
});

test('an upload without credentials: 401 before its file is read', async () => {
  const head = filePartHead('f');
  const r = await raw(multipartHead('/api/v1/user_uploads', Buffer.byteLength(head) + 10 * 1024 * 1024) + head + 'x');
  assertShape(r, 401, 'UNAUTHORIZED');
});

test('a request arriving while the server shuts down: 503 SERVER_NOT_READY in the API shape', async () => {
  // The server in its closing state (app.close() sets it in Fastify's preClose hook).
  const server = createServer(t.app.ctx, () => assert.fail('a closing server must not route'), { isClosing: () => true });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    for (const path of ['/api/v1/server_settings', '/api/v1/events?queue_id=x']) {
      const res = await fetch(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}${path}`);
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('connection'), 'close');
      assert.deepEqual(await res.json(), { result: 'error', msg: 'The server is shutting down; try again shortly', code: 'SERVER_NOT_READY' });
    }
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('a request timeout (408) and header overflow (431) from Node: answered on the socket in the API shape', () => {
  assert.deepEqual(clientErrorRefusal({ code: 'ERR_HTTP_REQUEST_TIMEOUT' }), { status: 408, code: 'REQUEST_TIMEOUT', msg: 'Request timeout' });
  const sock = new PassThrough() as unknown as net.Socket;
  let written = '';
  (sock as unknown as PassThrough).on('data', (d: Buffer) => (written += d.toString()));
  onClientError(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), sock);
  assert.match(written, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.match(written, /connection: close/);
  assert.deepEqual(JSON.parse(written.slice(written.indexOf('\r\n\r\n') + 4)), { result: 'error', msg: 'Request timeout', code: 'REQUEST_TIMEOUT' });
});
