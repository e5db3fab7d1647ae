import { Readable } from 'node:stream';
import { S3Client, GetObjectCommand, DeleteObjectCommand, NoSuchKey } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { byteCounter, checkKey, type Storage } from './storage.js';

export interface S3Options {
  bucket: string;
  /** A non-AWS store's URL: addressed path-style (bucket in the path), as MinIO and most others want. */
  endpoint: string | undefined;
  region: string | undefined;
}

/**
 * An S3-compatible bucket. Credentials come from the SDK's standard chain
 * (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, instance roles). Writes are
 * multipart uploads of bounded parts (lib-storage), so a large file streams through in
 * constant memory.
 */
export function s3Storage(opts: S3Options): Storage {
  const client = new S3Client({
    region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1',
    // Other stores than AWS: path-style, and checksums only where S3 requires them (the
    // SDK's newer default trailing checksums are not understood by every S3-compatible store).
    ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
  });
  return {
    kind: 's3',
    async put(key, body, { contentType }) {
      checkKey(key);
      const counter = byteCounter();
      // 5 MiB parts (S3's minimum), one in flight at a time: memory stays a few parts.
      const upload = new Upload({ client, params: { Bucket: opts.bucket, Key: key, Body: body.pipe(counter), ContentType: contentType }, queueSize: 1, partSize: 5 * 1024 * 1024 });
      body.on('error', (err) => counter.destroy(err));
      await upload.done();
      return counter.bytes;
    },
    async get(key) {
      checkKey(key);
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: opts.bucket, Key: key }));
        return out.Body instanceof Readable ? out.Body : undefined;
      } catch (err) {
        if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return undefined;
        throw err;
      }
    },
    async delete(key) {
      checkKey(key);
      await client.send(new DeleteObjectCommand({ Bucket: opts.bucket, Key: key }));
    },
  };
}
