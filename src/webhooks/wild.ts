import { payloadKeyMissing, payloadWrongType } from '../errors.js';

/**
 * A payload value that knows where it came from, as Zulip's WildValue: reading a key that
 * is not there, or taming a value of the wrong type, fails with the path in the message
 * (`payload['issue']['number'] is missing`), so a bad payload gets a clear error, not a crash.
 */
export class Wild {
  constructor(readonly value: unknown, readonly name = 'payload') {}

  private isDict(): this is { value: Record<string, unknown> } {
    return typeof this.value === 'object' && this.value !== null && !Array.isArray(this.value);
  }

  /** Python's repr of a key, as WildValue names it. */
  private child(key: string | number): string {
    return typeof key === 'number' ? `${this.name}[${key}]` : `${this.name}[${pyRepr(key)}]`;
  }

  has(key: string): boolean {
    return this.isDict() && Object.hasOwn(this.value, key);
  }

  /** A required key (or list index). */
  at(key: string | number): Wild {
    if (typeof key === 'number') {
      if (!Array.isArray(this.value)) throw payloadWrongType(this.name, 'a list');
      if (key >= this.value.length) throw payloadKeyMissing(this.child(key));
      return new Wild(this.value[key], this.child(key));
    }
    if (!this.isDict()) throw payloadWrongType(this.name, 'a dict');
    if (!Object.hasOwn(this.value, key)) throw payloadKeyMissing(this.child(key));
    return new Wild(this.value[key], this.child(key));
  }

  /** An optional key: its value, or a Wild of undefined. */
  get(key: string): Wild {
    return new Wild(this.has(key) ? (this.value as Record<string, unknown>)[key] : undefined, this.child(key));
  }

  /** Present and not null, empty or false (Python truthiness, as the views test `if payload.get(...)`). */
  truthy(): boolean {
    const v = this.value;
    if (Array.isArray(v)) return v.length > 0;
    if (typeof v === 'object' && v !== null) return Object.keys(v).length > 0;
    return v !== undefined && v !== null && v !== '' && v !== 0 && v !== false;
  }

  str(): string {
    if (typeof this.value !== 'string') throw payloadWrongType(this.name, 'a string');
    return this.value;
  }

  optStr(): string | null {
    return this.value === null || this.value === undefined ? null : this.str();
  }

  int(): number {
    if (typeof this.value !== 'number' || !Number.isInteger(this.value)) throw payloadWrongType(this.name, 'an integer');
    return this.value;
  }

  bool(): boolean {
    if (typeof this.value !== 'boolean') throw payloadWrongType(this.name, 'a boolean');
    return this.value;
  }

  list(): Wild[] {
    if (!Array.isArray(this.value)) throw payloadWrongType(this.name, 'a list');
    return this.value.map((v, i) => new Wild(v, this.child(i)));
  }

  /** A list, or none when absent or null. */
  optList(): Wild[] {
    return this.value === undefined || this.value === null ? [] : this.list();
  }
}

/** Python's repr() of a str: single quotes unless the text holds one and no double quote. */
export function pyRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  return q + (q === "'" ? body.replace(/'/g, "\\'") : body) + q;
}
