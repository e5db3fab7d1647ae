import { ApiError } from '../errors.js';
import type { NarrowTerm } from './types.js';

export const badNarrow = (desc: string) => new ApiError('BAD_NARROW', `Invalid narrow operator: ${desc}`, 400);

// Newer names clients may send, mapped to the operators Parley evaluates.
const ALIASES: Record<string, string> = { channel: 'stream', subject: 'topic', dm: 'pm-with', 'group-pm-with': 'group-pm-with', channels: 'streams' };
const OPERATORS = new Set(['stream', 'topic', 'sender', 'pm-with', 'group-pm-with', 'dm-including', 'is', 'in', 'streams', 'id', 'near', 'has', 'search']);

/**
 * Both wire forms: `[{"operator":..,"operand":..,"negated":..}]` and the legacy
 * `[["stream","x"]]` pairs. Shape errors use Zulip's wording.
 */
export function parseNarrow(raw: unknown): NarrowTerm[] {
  if (raw === undefined || raw === null || raw === '') return [];
  if (!Array.isArray(raw)) throw new ApiError('BAD_REQUEST', 'narrow is not a list', 400);
  return raw.map((item, i): NarrowTerm => {
    let operator: unknown;
    let operand: unknown;
    let negated: unknown = false;
    if (Array.isArray(item)) {
      if (item.length < 2) throw new ApiError('BAD_REQUEST', `narrow[${i}] is too short`, 400);
      [operator, operand] = item;
    } else if (item && typeof item === 'object') {
      const o = item as Record<string, unknown>;
      if (!('operator' in o) || !('operand' in o)) throw new ApiError('BAD_REQUEST', `narrow[${i}] is missing operator or operand`, 400);
      ({ operator, operand } = o);
      negated = o.negated ?? false;
    } else {
      throw new ApiError('BAD_REQUEST', `narrow[${i}] is not a dict`, 400);
    }
    if (typeof operator !== 'string') throw new ApiError('BAD_REQUEST', `narrow[${i}]["operator"] is not a string`, 400);
    if (typeof negated !== 'boolean') throw new ApiError('BAD_REQUEST', `narrow[${i}]["negated"] is not a boolean`, 400);
    const op = Object.hasOwn(ALIASES, operator) ? ALIASES[operator]! : operator;
    if (!OPERATORS.has(op)) throw badNarrow(`unknown operator ${operator}`);
    const valid = typeof operand === 'string' || (typeof operand === 'number' && Number.isInteger(operand))
      || (Array.isArray(operand) && operand.every((x) => typeof x === 'string' || (typeof x === 'number' && Number.isInteger(x))));
    if (!valid) throw new ApiError('BAD_REQUEST', `narrow[${i}]["operand"] is not a string or integer`, 400);
    return { operator: op, operand, negated };
  });
}
