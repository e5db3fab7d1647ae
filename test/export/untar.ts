import fs from 'node:fs';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

/** An exported archive read back whole (the tests' organizations are small): entries by name, and the one top folder. */
export async function untar(file: string): Promise<{ top: string; files: Map<string, Buffer> }> {
  const files = new Map<string, Buffer>();
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => { chunks.push(c as Buffer); });
    stream.on('end', () => {
      files.set(header.name, Buffer.concat(chunks));
      next();
    });
  });
  await pipeline(fs.createReadStream(file), zlib.createGunzip(), extract);
  const tops = new Set([...files.keys()].map((n) => n.split('/')[0]!));
  if (tops.size !== 1) throw new Error(`expected one top folder, found ${[...tops].join(', ')}`);
  const top = [...tops][0]!;
  const inside = new Map([...files].map(([n, b]) => [n.slice(top.length + 1), b]));
  return { top, files: inside };
}

export type Row = Record<string, unknown>;

export function json<T = Record<string, Row[]>>(files: Map<string, Buffer>, name: string): T {
  const b = files.get(name);
  if (!b) throw new Error(`${name} missing from the export`);
  return JSON.parse(b.toString('utf8')) as T;
}

/** Every messages-NNNNNN.json, in order, merged. */
export function allMessages(files: Map<string, Buffer>): { zerver_message: Row[]; zerver_usermessage: Row[] } {
  const out = { zerver_message: [] as Row[], zerver_usermessage: [] as Row[] };
  for (let i = 1; files.has(`messages-${String(i).padStart(6, '0')}.json`); i++) {
    const chunk = json<{ zerver_message: Row[]; zerver_usermessage: Row[] }>(files, `messages-${String(i).padStart(6, '0')}.json`);
    out.zerver_message.push(...chunk.zerver_message);
    out.zerver_usermessage.push(...chunk.zerver_usermessage);
  }
  return out;
}
