/**
 * Per-file counts of test results, to check that every result a test file's process sends
 * reaches the runner (test/run.ts). `node --test` runs each file in a child process that
 * streams its events to the runner over its stdout, framed as the v8-serializer reporter
 * writes them. The child counts the frames it writes (report-sender.mjs), the runner counts
 * the events it receives (report-receiver.mjs), and `compareCounts` names the files whose
 * counts differ. JavaScript (types in report-counts.d.mts): `node --test` loads reporters
 * without the TypeScript loader.
 */
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

export const COUNTS_DIR_ENV = 'PARLEY_TEST_COUNTS_DIR';
export const RECEIVED_FILE = 'received.json';
export const sentFile = (pid) => `sent-${pid}.json`;

export function fileKey(file, fallback) {
  const f = file ?? fallback;
  return path.resolve(f.startsWith('file:') ? fileURLToPath(f) : f);
}

/**
 * Adds one event to counts: top-level tests only (a test's subtests are inside its result).
 * The result the runner makes up for a file as a whole, named by the file's path (when its
 * process failed, or sent no test result), is kept apart: no test process sends it.
 */
export function countEvent(counts, ev, fallbackFile) {
  if (ev?.data?.nesting !== 0) return;
  const isResult = ev.type === 'test:pass' || ev.type === 'test:fail';
  if (!isResult && ev.type !== 'test:enqueue') return;
  const file = fileKey(ev.data.file, fallbackFile);
  const c = (counts[file] ??= { started: 0, results: 0 });
  if (isResult && typeof ev.data.name === 'string' && path.resolve(ev.data.name) === file) c.fileResult = ev.type === 'test:pass' ? 'pass' : 'fail';
  else if (isResult) c.results++;
  else c.started++;
}

const V8_HEADER = (() => {
  const s = new v8.Serializer();
  s.writeHeader();
  return s.releaseBuffer();
})();

/**
 * The events in a chunk a test process writes to its stdout: whole frames of the
 * v8-serializer reporter (a serializer header, a 4-byte big-endian length, then the
 * serialized event with its own header). Anything else (a test's own output) is skipped.
 */
export function decodeFrames(chunk) {
  const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const out = [];
  const h = V8_HEADER.length;
  let at = 0;
  while (at + h + 4 <= buf.length && buf.subarray(at, at + h).equals(V8_HEADER)) {
    const len = buf.readUInt32BE(at + h);
    const start = at + h + 4;
    if (start + len > buf.length) break;
    try {
      const ev = v8.deserialize(buf.subarray(start, start + len));
      if (ev && typeof ev.type === 'string') out.push(ev);
    } catch {
      break;
    }
    at = start + len;
  }
  return out;
}

/** Encodes an event as the v8-serializer reporter frames it (for tests of decodeFrames). */
export function encodeFrame(ev) {
  const body = v8.serialize(ev);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([V8_HEADER, len, body]);
}

/** Reads one suite run's counts: what reached the runner, and what the processes sent. */
export function readCounts(dir) {
  let received;
  const sent = {};
  for (const name of fs.readdirSync(dir)) {
    if (name !== RECEIVED_FILE && !/^sent-\d+\.json$/.test(name)) continue;
    const counts = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
    if (name === RECEIVED_FILE) { received = counts; continue; }
    for (const [file, c] of Object.entries(counts)) {
      const s = (sent[file] ??= { started: 0, results: 0 });
      s.started += c.started;
      s.results += c.results;
    }
  }
  return { received, sent };
}

/**
 * One line per test file whose results did not all reach the runner: results sent but not
 * received (or received but never sent), tests started whose process ended before it sent
 * their results, or a file the runner passed whose process sent no result at all (it ended
 * before its first: a process.exit() in a test). Files are shown relative to `cwd`. Empty
 * when every count matches.
 */
export function compareCounts(received, sent, cwd = process.cwd()) {
  const rel = (f) => path.relative(cwd, f) || f;
  if (!received) return ['the runner wrote no count of the results it received'];
  const out = [];
  for (const file of [...new Set([...Object.keys(received), ...Object.keys(sent)])].sort()) {
    const got = received[file];
    const r = got?.results ?? 0;
    const s = sent[file];
    if (!s) {
      // A file whose process failed before sending a result is failed by the runner already.
      if (r === 0 && got?.fileResult === 'fail') continue;
      out.push(r === 0
        ? `${rel(file)}: its process sent no test result at all (it ended before its first: a process.exit() in a test?)`
        : `${rel(file)}: ${r} results reached the runner, but no test process counted what it sent`);
      continue;
    }
    if (r !== s.results) {
      out.push(r < s.results
        ? `${rel(file)}: ${r} of the ${s.results} results its process sent reached the runner (${s.results - r} lost)`
        : `${rel(file)}: ${r} results reached the runner, but its process sent ${s.results}`);
    }
    if (s.results < s.started) {
      out.push(`${rel(file)}: ${s.started} tests started, but its process sent only ${s.results} results (it ended midway)`);
    }
  }
  return out;
}
