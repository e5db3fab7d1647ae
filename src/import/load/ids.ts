import { ImportError } from '../source.js';

/** Source id to Parley id for one table; an unknown id is an export that contradicts itself. */
export class IdMap {
  private readonly map = new Map<number, number>();
  constructor(private readonly what: string) {}

  set(from: number, to: number): void {
    this.map.set(from, to);
  }

  has(from: unknown): boolean {
    return typeof from === 'number' && this.map.has(from);
  }

  get(from: unknown, where: string): number {
    const to = typeof from === 'number' ? this.map.get(from) : undefined;
    if (to === undefined) throw new ImportError(`${where} names ${this.what} ${JSON.stringify(from)}, which the export does not have`);
    return to;
  }

  /** undefined for null/absent, else as get(). */
  optional(from: unknown, where: string): number | undefined {
    return from === null || from === undefined ? undefined : this.get(from, where);
  }

  entries(): IterableIterator<[number, number]> {
    return this.map.entries();
  }

  get size(): number {
    return this.map.size;
  }
}

/**
 * Message ids, which may number in the millions: two growing sorted typed arrays and a
 * binary search (16 bytes a message) rather than a Map (about five times that). Sources
 * give messages in ascending id, so appending keeps both arrays sorted.
 */
export class MessageIdMap {
  private from = new Float64Array(1 << 16);
  private to = new Float64Array(1 << 16);
  private n = 0;

  add(from: number, to: number): void {
    if (this.n > 0 && from <= this.from[this.n - 1]!) {
      throw new ImportError(`message ${from} comes after message ${this.from[this.n - 1]}: messages must be in ascending id`);
    }
    if (this.n === this.from.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.from = grow(this.from);
      this.to = grow(this.to);
    }
    this.from[this.n] = from;
    this.to[this.n] = to;
    this.n++;
  }

  lookup(from: unknown): number | undefined {
    if (typeof from !== 'number') return undefined;
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.from[mid]!;
      if (v === from) return this.to[mid];
      if (v < from) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** What the newest message at or before `from` in the export became; undefined when none is. */
  floor(from: number): number | undefined {
    let lo = 0;
    let hi = this.n - 1;
    let found: number | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.from[mid]! <= from) {
        found = this.to[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** What the export's first message became; undefined before any. */
  get first(): number | undefined {
    return this.n === 0 ? undefined : this.to[0];
  }

  get(from: unknown, where: string): number {
    const to = this.lookup(from);
    if (to === undefined) throw new ImportError(`${where} names message ${JSON.stringify(from)}, which the export does not have`);
    return to;
  }

  get size(): number {
    return this.n;
  }
}

/** Field readers that name the row when the export's value is not what Zulip writes. */
export const field = {
  int(row: Record<string, unknown>, key: string, where: string): number {
    const v = row[key];
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new ImportError(`${where}: ${key} is not an integer`);
    return v;
  },
  str(row: Record<string, unknown>, key: string, where: string, fallback?: string): string {
    const v = row[key];
    if (typeof v === 'string') return v;
    if (fallback !== undefined && (v === undefined || v === null)) return fallback;
    throw new ImportError(`${where}: ${key} is not a string`);
  },
  bool(row: Record<string, unknown>, key: string, fallback = false): boolean {
    const v = row[key];
    return typeof v === 'boolean' ? v : typeof v === 'number' ? v !== 0 : fallback;
  },
  /** Zulip writes dates as Unix seconds (floats); whole seconds here. */
  time(row: Record<string, unknown>, key: string, fallback: number): number {
    const v = row[key];
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < 1e11 ? Math.floor(v) : fallback;
  },
};
