import { Transform, type Readable } from 'node:stream';

/**
 * Where uploaded bytes live: one small interface with two back ends, the data directory
 * (one server process) and an S3-compatible object store (several processes, which cannot
 * share a local disk). Keys are Zulip's path ids (`<realm_id>/<random>/<name>`) and the
 * emoji paths (`<realm_id>/emoji/images/<file>`); what may see a key is decided above this.
 * The back ends import this contract; create-storage.ts picks one (no import cycle).
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

/** Counts what passes through: the size of a stream written without holding it. */
export function byteCounter(): Transform & { bytes: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      t.bytes += chunk.length;
      done(null, chunk);
    },
  }) as Transform & { bytes: number };
  t.bytes = 0;
  return t;
}
