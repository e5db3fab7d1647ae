import { BinaryOperationNode, OperatorNode, PostgresDialect, PostgresQueryCompiler, type OperationNode, type PrimitiveValueListNode, type QueryCompiler } from 'kysely';

/**
 * Past this many values an IN-list is bound as ONE parameter, a JSON array, instead of one
 * parameter per value: SQLite refuses a statement of more than 32,766 variables and
 * PostgreSQL one of more than 65,535, and a list built from a caller's input (narrow
 * operands, subscribers, message ids) must never end in a 500 "too many SQL variables".
 * Shorter lists keep their plain form (and their plans); request lists are bounded anyway
 * (LIST_LIMITS), so this is the store's own guarantee for whatever reaches it.
 */
export const LONG_LIST = 1000;

export type ListKind = 'integer' | 'text';

/** The values of an `x IN (...)` / `x NOT IN (...)` list that should be bound as one JSON parameter, with their kind; undefined otherwise. */
export function longInList(node: PrimitiveValueListNode, parent: OperationNode | undefined): ListKind | undefined {
  const values = node.values;
  if (values.length <= LONG_LIST || !parent || !BinaryOperationNode.is(parent) || parent.rightOperand !== node) return undefined;
  if (!OperatorNode.is(parent.operator) || (parent.operator.operator !== 'in' && parent.operator.operator !== 'not in')) return undefined;
  if (values.every((v) => typeof v === 'number' && Number.isSafeInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'string')) return 'text';
  return undefined;
}

/** PostgreSQL's compiler with long IN-lists bound as one jsonb parameter. */
export class BoundedPostgresCompiler extends PostgresQueryCompiler {
  protected override visitPrimitiveValueList(node: PrimitiveValueListNode): void {
    const kind = longInList(node, this.parentNode);
    if (!kind) return super.visitPrimitiveValueList(node);
    this.append(kind === 'integer' ? '(select (jsonb_array_elements_text(' : '(select jsonb_array_elements_text(');
    this.appendValue(JSON.stringify(node.values));
    this.append(kind === 'integer' ? '::jsonb))::bigint)' : '::jsonb))');
  }
}

export class BoundedPostgresDialect extends PostgresDialect {
  override createQueryCompiler(): QueryCompiler { return new BoundedPostgresCompiler(); }
}
