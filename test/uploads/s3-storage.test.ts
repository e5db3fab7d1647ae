import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { s3Storage } from '../../src/uploads/s3-storage.js';
import type { Storage } from '../../src/uploads/storage.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { uploadOne, fetchUpload } from '../helpers/multipart.js';
import { startFakeS3, type FakeS3 } from '../helpers/fake-s3.js';

/** The S3 back end against the in-process fake of the S3 calls it makes (test/helpers/fake-s3.ts). */
let s3: FakeS3;
let endpoint = '';

before(async () => {
  s3 = await startFakeS3();
  endpoint = s3.endpoint;
});
after(() => s3.close());

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
  const before = s3.partsSeen();
  assert.equal(await s.put('2/big/b.bin', Readable.from((function* () { for (let o = 0; o < size; o += 65536) yield data.subarray(o, o + 65536); })()), { contentType: 'application/octet-stream' }), size);
  assert.equal(s3.partsSeen() - before, 3);
  assert.ok((await read(s, '2/big/b.bin'))!.equals(data));
});

test('the whole server on the S3 back end: upload and fetch through the API', async () => {
  const t: TestApp = await testApp({ s3Bucket: 'bucket', s3Endpoint: endpoint, s3Region: 'us-east-1' });
  try {
    assert.equal(t.app.ctx.storage.kind, 's3');
    const uri = await uploadOne(t, t.owner, 'via-s3.txt', 'in the bucket');
    assert.ok(s3.objects.has(uri.slice('/user_uploads/'.length)));
    assert.equal((await fetchUpload(t, uri, t.owner)).body, 'in the bucket');
  } finally {
    await t.close();
  }
});
