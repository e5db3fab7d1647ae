import fs from 'node:fs';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

/**
 * A .tar.gz written as it goes: each entry is a buffer or a file on disk (whose size tar
 * needs up front), so memory holds at most one buffered entry and the streams' buffers.
 */
export class TarWriter {
  private pack = tar.pack();
  private done: Promise<void>;

  constructor(file: string) {
    this.done = pipeline(this.pack, zlib.createGzip(), fs.createWriteStream(file, { mode: 0o600 }));
    // Surfaced by finish(); an unobserved rejection meanwhile would end the process.
    this.done.catch(() => {});
  }

  addBuffer(name: string, data: Buffer | string, mtime = new Date()): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pack.entry({ name, mtime, mode: 0o644 }, data, (err) => (err ? reject(err) : resolve()));
    });
  }

  /** `onBytes` hears the file's bytes as they are packed (a progress bar over big files). */
  async addFile(name: string, file: string, mtime = new Date(), onBytes?: (n: number) => void): Promise<void> {
    const { size } = await fs.promises.stat(file);
    let entry: ReturnType<tar.Pack['entry']> | undefined;
    const packed = new Promise<void>((resolve, reject) => {
      entry = this.pack.entry({ name, size, mtime, mode: 0o644 }, (err) => (err ? reject(err) : resolve()));
    });
    const source = fs.createReadStream(file);
    if (onBytes) source.on('data', (chunk) => onBytes(chunk.length));
    await Promise.all([pipeline(source, entry!), packed]);
  }

  async finish(): Promise<void> {
    this.pack.finalize();
    await this.done;
  }

  /** Stops writing after a failure (the caller removes the file). */
  abort(err: Error): void {
    this.pack.destroy(err);
  }
}
