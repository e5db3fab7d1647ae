import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { byteCounter, checkKey, type Storage } from './storage.js';

/**
 * Files under a root directory, one per key. A write goes to a temporary name beside its
 * target and is renamed into place once complete, so that a reader never sees half a file
 * and a failed upload leaves nothing under the key.
 */
export function localStorage(root: string): Storage {
  const fileOf = (key: string) => {
    checkKey(key);
    return path.join(root, ...key.split('/'));
  };
  return {
    kind: 'local',
    async put(key, body) {
      const file = fileOf(key);
      await fsp.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.part-${crypto.randomBytes(6).toString('hex')}`;
      const counter = byteCounter();
      try {
        await pipeline(body, counter, fs.createWriteStream(tmp));
        await fsp.rename(tmp, file);
      } catch (err) {
        await fsp.rm(tmp, { force: true });
        throw err;
      }
      return counter.bytes;
    },
    async get(key) {
      const file = fileOf(key);
      try {
        const handle = await fsp.open(file, 'r');
        return handle.createReadStream() as Readable;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async delete(key) {
      await fsp.rm(fileOf(key), { force: true });
    },
  };
}
