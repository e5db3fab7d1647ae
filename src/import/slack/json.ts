/** Reading the export's JSON files, each failure one line naming the file. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ImportError } from '../source.js';

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

async function readText(dir: string, rel: string, optional: boolean): Promise<string | undefined> {
  try {
    return await fs.readFile(path.join(dir, rel), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      if (optional) return undefined;
      throw new ImportError(`Slack export: ${rel} is missing`);
    }
    throw new ImportError(`Slack export: ${rel} cannot be read (${(e as Error).message})`);
  }
}

/** A file holding a JSON array of objects (every file of a Slack export is one). */
export async function readObjects(dir: string, rel: string, optional = false): Promise<Obj[] | undefined> {
  const text = await readText(dir, rel, optional);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ImportError(`Slack export: ${rel} is not valid JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(value)) throw new ImportError(`Slack export: ${rel} is not a JSON array`);
  value.forEach((v, i) => {
    if (!isObj(v)) throw new ImportError(`Slack export: ${rel} entry ${i} is not an object`);
  });
  return value as Obj[];
}

export function str(o: Obj, key: string, where: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw new ImportError(`Slack export: ${where} has no string "${key}"`);
  return v;
}

export const optStr = (o: Obj | undefined, key: string): string | undefined => {
  const v = o?.[key];
  return typeof v === 'string' ? v : undefined;
};

export const obj = (o: Obj | undefined, key: string): Obj | undefined => {
  const v = o?.[key];
  return isObj(v) ? v : undefined;
};

export function strList(o: Obj, key: string, where: string): string[] {
  const v = o[key] ?? [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
    throw new ImportError(`Slack export: ${where} has a "${key}" that is not a list of ids`);
  }
  return v as string[];
}

export const objList = (o: Obj | undefined, key: string): Obj[] => {
  const v = o?.[key];
  return Array.isArray(v) ? v.filter(isObj) : [];
};

/** Slack's timestamps ("1434139102.000002") and Unix seconds given as numbers. */
export function seconds(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}
