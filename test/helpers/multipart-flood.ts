import http from 'node:http';
import { Readable } from 'node:stream';

/**
 * Many large multipart requests at once, as an attacker without credentials sends them:
 * each body is one file part of `bytes` generated as it is sent (the client holds one 64 KB
 * chunk, so a memory figure is the server's). Half declare their length, half are chunked
 * (nothing to refuse them by but their parts). Resolves with each answer and how many
 * bytes of its body went out before it came.
 */
export interface FloodAnswer { status: number; body: string; ms: number; sent: number }

const BOUNDARY = 'floodBOUNDARY';
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

function body(bytes: number): { head: Buffer; tail: Buffer; length: number } {
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  return { head, tail, length: head.length + bytes + tail.length };
}

export function floodOne(base: string, path: string, bytes: number, chunked: boolean, headers: Record<string, string> = {}): Promise<FloodAnswer> {
  const started = performance.now();
  const b = body(bytes);
  let sent = 0;
  const stream = Readable.from((function* () {
    yield b.head;
    for (let left = bytes; left > 0; left -= CHUNK.length) yield left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
    yield b.tail;
  })());
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, {
      method: 'POST', agent: false,
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...(chunked ? {} : { 'content-length': String(b.length) }) },
    }, (res) => {
      // Answered: a client stops sending then (the server has said it will close).
      stream.pause();
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        stream.destroy();
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started, sent });
      });
    });
    // The server closes the connection after refusing: writing on is expected to fail then.
    req.on('error', (err) => { if (sent === 0) reject(err); });
    let answered = false;
    req.once('response', () => (answered = true));
    stream.on('data', (c: Buffer) => {
      if (answered) return;
      sent += c.length;
      if (!req.write(c)) stream.pause();
    });
    req.on('drain', () => stream.resume());
    stream.on('end', () => req.end());
  });
}

/** `count` requests at once, alternating the routes given and declared/chunked bodies. */
export function flood(base: string, paths: string[], count: number, bytes: number): Promise<FloodAnswer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => floodOne(base, paths[i % paths.length]!, bytes, Math.floor(i / paths.length) % 2 === 1)));
}
