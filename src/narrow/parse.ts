import { badNarrow, badRequest } from '../errors.js';
import type { NarrowTerm } from './types.js';
import { capList, checkListSize } from '../lib/lists.js';
import { LIST_LIMITS } from '../lib/limits.js';


// Newer names clients may send, mapped to the operators Parley evaluates.
const ALIASES: Record<string, string> = { channel: 'stream', subject: 'topic', dm: 'pm-with', 'group-pm-with': 'group-pm-with', channels: 'streams' };
const OPERATORS = new Set(['stream', 'topic', 'sender', 'pm-with', 'group-pm-with', 'dm-including', 'is', 'in', 'streams', 'id', 'near', 'has', 'search', 'with']);

/**
 * Both wire forms: `[{"operator":..,"operand":..,"negated":..}]` and the legacy
 * `[["stream","x"]]` pairs. Shape errors use Zulip's wording.
 */
export function parseNarrow(raw: unknown): NarrowTerm[] {
  if (raw === undefined || raw === null || raw === '') return [];
  if (!Array.isArray(raw)) throw badRequest('narrow is not a list');
  capList('narrow', raw, LIST_LIMITS.narrowTerms);
  return raw.map((item, i): NarrowTerm => {
    let operator: unknown;
    let operand: unknown;
    let negated: unknown = false;
    if (Array.isArray(item)) {
      if (item.length < 2) throw badRequest(`narrow[${i}] is too short`);
      [operator, operand] = item;
    } else if (item && typeof item === 'object') {
      const o = item as Record<string, unknown>;
      if (!('operator' in o) || !('operand' in o)) throw badRequest(`narrow[${i}] is missing operator or operand`);
      ({ operator, operand } = o);
      negated = o.negated ?? false;
    } else {
      throw badRequest(`narrow[${i}] is not a dict`);
    }
    if (typeof operator !== 'string') throw badRequest(`narrow[${i}]["operator"] is not a string`);
    if (typeof negated !== 'boolean') throw badRequest(`narrow[${i}]["negated"] is not a boolean`);
    const op = Object.hasOwn(ALIASES, operator) ? ALIASES[operator]! : operator;
    if (!OPERATORS.has(op)) throw badNarrow(`unknown operator ${operator}`);
    const valid = typeof operand === 'string' || (typeof operand === 'number' && Number.isInteger(operand))
      || (Array.isArray(operand) && operand.every((x) => typeof x === 'string' || (typeof x === 'number' && Number.isInteger(x))));
    if (!valid) throw badRequest(`narrow[${i}]["operand"] is not a string or integer`);
    // A string operand may list people too (`a@x,b@x`); the commas bound its items alike.
    const items = Array.isArray(operand) ? operand.length : typeof operand === 'string' && op === 'pm-with' ? operand.split(',').length : 1;
    checkListSize(`narrow[${i}]["operand"]`, items, LIST_LIMITS.narrowOperandItems);
    return { operator: op, operand, negated };
  });
}
