import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { localStorage } from './local-storage.js';

/**
 * Where uploaded bytes live: one small interface with two back ends, the data directory
 * (one server process) and an S3-compatible object store (several processes, which cannot
 * share a local disk). Keys are Zulip's path ids (`<realm_id>/<random>/<name>`) and the
 * emoji paths (`<realm_id>/emoji/images/<file>`); what may see a key is decided above this.
 */
export interface Storage {
  /** Streams `body` to `key` (replacing any object there); answers the bytes written. */
  put(key: string, body: Readable, opts: { contentType: string }): Promise<number>;
  /** The object's bytes as a stream, or undefined when there is none. */
  get(key: string): Promise<Readable | undefined>;
  /** Removes the object; a missing one is no error. */
  delete(key: string): Promise<void>;
  readonly kind: 'local' | 's3';
}

/** Keys are made by Parley, never taken from a request as they are; still, no key may climb out. */
export function checkKey(key: string): void {
  if (key === '' || key.startsWith('/') || key.split('/').some((seg) => seg === '' || seg === '.' || seg === '..') || key.includes('\\') || key.includes('\u0000')) {
    throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
}

/** The configured back end: S3 when a bucket is named (its SDK is loaded only then). */
export async function createStorage(config: Pick<Config, 'dataDir' | 's3Bucket' | 's3Endpoint' | 's3Region'>): Promise<Storage> {
  if (config.s3Bucket) {
    const { s3Storage } = await import('./s3-storage.js');
    return s3Storage({ bucket: config.s3Bucket, endpoint: config.s3Endpoint, region: config.s3Region });
  }
  return localStorage(`${config.dataDir}/uploads`);
}
