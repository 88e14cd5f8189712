import {
  decodeBody,
  type DeliveryOutcome,
  findEventModel,
  TYPED_TABLES,
  type TypedRows,
} from '../receiver/contract.ts';
import { ROW_TABLES, type ExpectedAnswer, type Outcome, type RowTable } from './expected-answer.ts';

// The file format (expected-answer.ts) lists the receiver's outcomes itself, since it may not import the
// receiver; this stops the typecheck if the two lists ever differ, in either direction.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const OUTCOME_LISTS_AGREE: Same<DeliveryOutcome, Outcome> = true;
void OUTCOME_LISTS_AGREE;

const NO_ROWS = Object.fromEntries(ROW_TABLES.map((table) => [table, 0])) as Record<
  RowTable,
  number
>;

export interface ObservedDelivery {
  eventName: string;
  rawBody: Buffer;
  /** As recorded: lower-case names. */
  headers: Record<string, string>;
  outcome: 'stored' | 'duplicate' | 'quarantined';
  errorPaths?: readonly string[];
}

/**
 * A file's `expected` is the answer to the delivery replayed alone into empty tables. A live
 * answer can differ: a live `duplicate` is `stored` on a clean replay, and a `stored` delivery
 * whose typed rows another delivery already carried writes them all. So a stored or duplicate
 * delivery is judged again by the receiver's own body check, and its rows counted from that.
 */
export function cleanReplayExpectation(observed: ObservedDelivery): ExpectedAnswer {
  if (observed.outcome === 'quarantined') {
    return quarantined(observed.errorPaths);
  }
  const model = findEventModel(observed.eventName);
  const decoded = decodeBody(observed.rawBody, observed.headers['content-type'], model);
  if (!decoded.ok) return quarantined(decoded.problems.map((problem) => problem.path));
  return {
    status: 200,
    outcome: 'stored',
    modelled: model !== undefined,
    rows: { ...NO_ROWS, webhook_deliveries: 1, ...typedRowCounts(decoded.typed) },
  };
}

function quarantined(errorPaths: readonly string[] | undefined): ExpectedAnswer {
  return {
    status: 400,
    outcome: 'quarantined',
    ...(errorPaths !== undefined && { errorPaths: [...errorPaths] }),
    rows: { ...NO_ROWS, quarantined_deliveries: 1 },
  };
}

/**
 * Rows a clean replay writes: a business key (a rejection id, a TransactionId) repeated within
 * one body is stored once, and each repeat whose content differs from the first is a conflict.
 * A table the file format does not name (the registry's `conflicts-only`) counts its conflicts.
 */
function typedRowCounts(typed: TypedRows): Partial<Record<RowTable, number>> {
  const table = TYPED_TABLES.find((t) => t.kind === typed.kind);
  if (table === undefined) return {};
  const rows = typed.rows as readonly Readonly<Record<string, string | null>>[];
  const { keys, conflicts } = repeatedKeys(rows, (row) => String(row[table.rowKey]));
  return table.capture === 'counted' ? { [table.table]: keys, conflicts } : { conflicts };
}

/** Distinct business keys in one body, and the repeats whose content differs from the first. */
function repeatedKeys<Row extends object>(rows: readonly Row[], keyOf: (row: Row) => string) {
  const first = new Map<string, string>();
  let conflicts = 0;
  for (const row of rows) {
    const content = JSON.stringify({ ...row, dateTimeText: null });
    const seen = first.get(keyOf(row));
    if (seen === undefined) first.set(keyOf(row), content);
    else if (seen !== content) conflicts += 1;
  }
  return { keys: first.size, conflicts };
}
