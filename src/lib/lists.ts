import { listTooLong } from '../errors.js';

/** Refuses a list of more than `max` items (LIST_LIMITS in limits.ts), before anything looks at them. */
export function checkListSize(name: string, size: number, max: number): void {
  if (size > max) throw listTooLong(name, max);
}

/** A JSON value that should be a list: its length is checked here, its shape by the caller; anything else passes as it is. */
export function capList<T>(name: string, v: T, max: number): T {
  if (Array.isArray(v)) checkListSize(name, v.length, max);
  return v;
}
