import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { s3Storage } from '../../src/uploads/s3-storage.js';
import type { Storage } from '../../src/uploads/storage.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { uploadOne, fetchUpload } from '../helpers/multipart.js';

/**
 * The S3 back end against a minimal in-process fake of the S3 REST calls it makes (put,
 * the multipart upload of lib-storage, get, delete; path-style; signatures not checked).
 * This shows the calls and the streaming work end to end; it is no substitute for a run
 * against a real store, which this machine cannot reach.
 */
const objects = new Map<string, Buffer>();
const multipart = new Map<string, Map<number, Buffer>>();
let server: http.Server;
let endpoint = '';
let partsSeen = 0;

async function bodyOf(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

before(async () => {
  server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    const key = decodeURIComponent(url.pathname.replace(/^\/bucket\//, ''));
    const q = url.searchParams;
    const body = await bodyOf(req);
    const xml = (s: string) => { res.setHeader('content-type', 'application/xml'); res.end(`<?xml version="1.0" encoding="UTF-8"?>${s}`); };
    if (req.method === 'POST' && q.has('uploads')) {
      const id = `up${multipart.size + 1}`;
      multipart.set(id, new Map());
      return xml(`<InitiateMultipartUploadResult><Bucket>bucket</Bucket><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
    }
    if (req.method === 'PUT' && q.has('uploadId')) {
      multipart.get(q.get('uploadId')!)!.set(Number(q.get('partNumber')), body);
      partsSeen += 1;
      res.setHeader('etag', `"p${q.get('partNumber')}"`);
      return res.end();
    }
    if (req.method === 'POST' && q.has('uploadId')) {
      const parts = multipart.get(q.get('uploadId')!)!;
      objects.set(key, Buffer.concat([...parts.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1])));
      return xml(`<CompleteMultipartUploadResult><Bucket>bucket</Bucket><Key>${key}</Key><ETag>"done"</ETag></CompleteMultipartUploadResult>`);
    }
    if (req.method === 'DELETE' && q.has('uploadId')) { multipart.delete(q.get('uploadId')!); res.statusCode = 204; return res.end(); }
    if (req.method === 'PUT') { objects.set(key, body); res.setHeader('etag', '"x"'); return res.end(); }
    if (req.method === 'GET') {
      const obj = objects.get(key);
      if (!obj) { res.statusCode = 404; return xml('<Error><Code>NoSuchKey</Code><Message>none</Message></Error>'); }
      res.setHeader('content-length', obj.length);
      return res.end(obj);
    }
    if (req.method === 'DELETE') { objects.delete(key); res.statusCode = 204; return res.end(); }
    res.statusCode = 400;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
});
after(() => new Promise<void>((r) => server.close(() => r())));

const read = async (s: Storage, key: string) => {
  const stream = await s.get(key);
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

test('put, get and delete; a missing key reads as undefined', async () => {
  const s = s3Storage({ bucket: 'bucket', endpoint, region: 'us-east-1' });
  assert.equal(await s.put('2/abc/a.txt', Readable.from([Buffer.from('hello')]), { contentType: 'text/plain' }), 5);
  assert.equal((await read(s, '2/abc/a.txt'))?.toString(), 'hello');
  await s.delete('2/abc/a.txt');
  assert.equal(await read(s, '2/abc/a.txt'), undefined);
  await assert.rejects(s.put('../x', Readable.from([Buffer.from('x')]), { contentType: 'text/plain' }));
});

test('a file larger than one part goes up as a multipart upload, in order', async () => {
  const s = s3Storage({ bucket: 'bucket', endpoint, region: 'us-east-1' });
  const size = 12 * 1024 * 1024 + 7;
  const data = Buffer.alloc(size);
  for (let i = 0; i < size; i++) data[i] = i % 251;
  const before = partsSeen;
  assert.equal(await s.put('2/big/b.bin', Readable.from((function* () { for (let o = 0; o < size; o += 65536) yield data.subarray(o, o + 65536); })()), { contentType: 'application/octet-stream' }), size);
  assert.equal(partsSeen - before, 3);
  assert.ok((await read(s, '2/big/b.bin'))!.equals(data));
});

test('the whole server on the S3 back end: upload and fetch through the API', async () => {
  const t: TestApp = await testApp({ s3Bucket: 'bucket', s3Endpoint: endpoint, s3Region: 'us-east-1' });
  try {
    assert.equal(t.app.ctx.storage.kind, 's3');
    const uri = await uploadOne(t, t.owner, 'via-s3.txt', 'in the bucket');
    assert.ok(objects.has(uri.slice('/user_uploads/'.length)));
    assert.equal((await fetchUpload(t, uri, t.owner)).body, 'in the bucket');
  } finally {
    await t.close();
  }
});
