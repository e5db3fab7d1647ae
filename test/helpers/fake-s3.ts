import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal in-process fake of the S3 REST calls the S3 back end makes (put, the multipart
 * upload of lib-storage, get, delete; path-style, bucket `bucket`; signatures not checked).
 * It shows the calls and the streaming work end to end; it is no substitute for a run
 * against a real store, which this machine cannot reach.
 */
export interface FakeS3 {
  /** The stored objects by key. */
  objects: Map<string, Buffer>;
  /** The server's URL, for s3Endpoint. */
  endpoint: string;
  /** Parts received by multipart uploads so far. */
  partsSeen(): number;
  /** DELETE calls received so far, by key (an absent key's too: S3 answers 204 alike). */
  deletes: string[];
  close(): Promise<void>;
}

async function bodyOf(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Starts the fake on a free loopback port and sets the AWS credentials the SDK wants to see. */
export async function startFakeS3(): Promise<FakeS3> {
  const objects = new Map<string, Buffer>();
  const multipart = new Map<string, Map<number, Buffer>>();
  const deletes: string[] = [];
  let parts = 0;
  const server = http.createServer(async (req, res) => {
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
      parts += 1;
      res.setHeader('etag', `"p${q.get('partNumber')}"`);
      return res.end();
    }
    if (req.method === 'POST' && q.has('uploadId')) {
      const got = multipart.get(q.get('uploadId')!)!;
      objects.set(key, Buffer.concat([...got.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1])));
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
    if (req.method === 'DELETE') { deletes.push(key); objects.delete(key); res.statusCode = 204; return res.end(); }
    res.statusCode = 400;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  return {
    objects, deletes,
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    partsSeen: () => parts,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
