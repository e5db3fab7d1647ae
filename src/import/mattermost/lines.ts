import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { ImportError } from '../source.js';

/**
 * export.json is JSON Lines. The first pass streams it and hands each line with its byte
 * offset, so that posts can later be read back one by one in date order by positional reads
 * instead of being held in memory.
 */

/** A single line bigger than this is refused rather than buffered (a post with its whole thread is far smaller). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

export type JsonObject = Record<string, unknown>;

export interface LineRef {
  /** 1-based, as an editor shows it. */
  lineNo: number;
  offset: number;
  length: number;
}

export async function scanLines(file: string, onLine: (bytes: Buffer, ref: LineRef) => void): Promise<void> {
  const stream = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  let parts: Buffer[] = [];
  let partBytes = 0;
  let lineStart = 0;
  let position = 0;
  let lineNo = 0;
  const emit = (tail: Buffer): void => {
    const bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
    parts = [];
    partBytes = 0;
    lineNo++;
    onLine(bytes, { lineNo, offset: lineStart, length: bytes.length });
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      emit(chunk.subarray(from, nl));
      from = nl + 1;
      lineStart = position + from;
    }
    if (from < chunk.length) {
      partBytes += chunk.length - from;
      if (partBytes > MAX_LINE_BYTES) throw new ImportError(`export.json line ${lineNo + 1} is longer than ${MAX_LINE_BYTES} bytes`);
      parts.push(chunk.subarray(from));
    }
    position += chunk.length;
  }
  if (partBytes > 0) emit(Buffer.alloc(0));
}

/** The line's object, or an ImportError naming the line; undefined for a blank line. */
export function parseLine(bytes: Buffer, lineNo: number): JsonObject | undefined {
  let text = bytes.toString('utf8');
  if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ImportError(`export.json line ${lineNo}: not valid JSON (${(e as Error).message})`);
  }
  if (!isObject(value) || typeof value.type !== 'string') {
    throw new ImportError(`export.json line ${lineNo}: not an object with a "type"`);
  }
  return value;
}

export async function readLineAt(fh: FileHandle, ref: LineRef): Promise<JsonObject> {
  const buf = Buffer.alloc(ref.length);
  const { bytesRead } = await fh.read(buf, 0, ref.length, ref.offset);
  if (bytesRead !== ref.length) throw new ImportError(`export.json changed while it was read (line ${ref.lineNo})`);
  const row = parseLine(buf, ref.lineNo);
  if (!row) throw new ImportError(`export.json changed while it was read (line ${ref.lineNo})`);
  return row;
}

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Field readers: Mattermost writes null for many absent values, and these treat null as absent. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const objects = (v: unknown): JsonObject[] => list(v).filter(isObject);
export const strings = (v: unknown): string[] => list(v).filter((x): x is string => typeof x === 'string');
