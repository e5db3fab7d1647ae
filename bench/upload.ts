/**
 * `npm run bench -- upload [MiB] [runs]`: uploads one file of MiB (default 25, the default
 * limit) to POST /user_uploads over real HTTP, and prints the server process's resident
 * memory: before, the highest sampled during each upload (every 5 ms), and the kernel's
 * high-water mark (VmHWM). The client streams its body in 64 KiB chunks, so the figure is
 * the server's: a server holding the file would grow by about its size per upload.
 * The server runs in its own process (bench/lib/server-child.ts, SQLite, the data
 * directory's local storage). Linux only (reads /proc).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const mib = Number(process.argv[2] ?? 25);
const runs = Number(process.argv[3] ?? 3);
const root = path.dirname(import.meta.dirname);

const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/lib/server-child.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
const ready = await new Promise<{ parley: string; email: string; apiKey: string }>((resolve, reject) => {
  readline.createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
  child.once('exit', (code) => reject(new Error(`server exited: ${code}`)));
});
const auth = 'Basic ' + Buffer.from(`${ready.email}:${ready.apiKey}`).toString('base64');

function status(field: 'VmRSS' | 'VmHWM'): number {
  const line = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

/** A multipart body generated as it is sent: the client holds one chunk at a time too. */
function body(size: number, boundary: string): ReadableStream<Uint8Array> {
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let left = size;
  let stage = 0;
  return new ReadableStream({
    pull(c) {
      if (stage === 0) { c.enqueue(head); stage = 1; return; }
      if (left > 0) { const n = Math.min(left, chunk.length); c.enqueue(chunk.subarray(0, n)); left -= n; return; }
      if (stage === 1) { c.enqueue(tail); stage = 2; return; }
      c.close();
    },
  });
}

// Warm up: one small upload, so that lazily loaded code is counted before, not during.
async function upload(size: number): Promise<{ ms: number; uri: string }> {
  const boundary = `bench${Date.now()}`;
  const t0 = performance.now();
  const res = await fetch(`${ready.parley}/api/v1/user_uploads`, {
    method: 'POST', headers: { authorization: auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: body(size, boundary), duplex: 'half',
  } as RequestInit);
  const json = await res.json() as { uri?: string; msg?: string };
  if (!json.uri) throw new Error(`upload failed: ${JSON.stringify(json)}`);
  return { ms: performance.now() - t0, uri: json.uri };
}
await upload(1024);
global.gc?.();
const before = status('VmRSS');
const hwmBefore = status('VmHWM');
console.log(`server RSS before: ${before.toFixed(1)} MiB (high-water mark so far ${hwmBefore.toFixed(1)} MiB)`);
for (let i = 0; i < runs; i++) {
  let peak = 0;
  const timer = setInterval(() => { peak = Math.max(peak, status('VmRSS')); }, 5);
  const { ms } = await upload(mib * 1024 * 1024);
  clearInterval(timer);
  peak = Math.max(peak, status('VmRSS'));
  console.log(`upload ${i + 1}: ${mib} MiB in ${ms.toFixed(0)} ms (${(mib / (ms / 1000)).toFixed(0)} MiB/s); peak RSS ${peak.toFixed(1)} MiB (+${(peak - before).toFixed(1)} MiB over before)`);
}
console.log(`server VmHWM after: ${status('VmHWM').toFixed(1)} MiB (+${(status('VmHWM') - before).toFixed(1)} MiB over the RSS before)`);
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
