import {
  TYPED_TABLES,
  type CapturedTypedTable,
  type TypedTableEntry,
} from '../receiver/contract.ts';

/** What a captured delivery says the receiver must answer, and how to compare an answer to it. */

/**
 * The receiver's delivery outcomes, as the file format spells them. The receiver's own type
 * (DeliveryOutcome) is checked against this list where both meet (clean-replay-expectation.ts), so the two
 * cannot drift apart without the typecheck failing.
 */
export const OUTCOMES = [
  'stored',
  'duplicate',
  'quarantined',
  'unauthorised',
  'no-signing-key',
  'signature-unconfirmed',
  'error',
] as const;

export type Outcome = (typeof OUTCOMES)[number];

export const STATUS_FOR_OUTCOME: Readonly<Record<Outcome, number>> = {
  stored: 200,
  duplicate: 200,
  quarantined: 400,
  unauthorised: 401,
  'no-signing-key': 503,
  'signature-unconfirmed': 503,
  error: 500,
};

/** The envelope's `status` word for each answer a delivery can get (src/receiver/http/envelope.ts). */
const STATUS_WORDS: Readonly<Record<number, string>> = {
  200: 'Ok',
  400: 'BadRequest',
  401: 'Unauthorised',
  404: 'NotFound',
  413: 'PayloadTooLarge',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

/**
 * The tables whose rows a file counts: the delivery, each typed table the registry marks
 * `counted` (events/event-types.ts), conflicts and quarantine, in this order.
 */
export type RowTable =
  'webhook_deliveries' | CapturedTypedTable | 'conflicts' | 'quarantined_deliveries';

export const ROW_TABLES: readonly RowTable[] = Object.freeze([
  'webhook_deliveries',
  ...TYPED_TABLES.filter(isCounted).map((t) => t.table),
  'conflicts',
  'quarantined_deliveries',
]);

function isCounted(t: TypedTableEntry): t is Extract<TypedTableEntry, { capture: 'counted' }> {
  return t.capture === 'counted';
}

export interface ExpectedAnswer {
  status: number;
  outcome: Outcome;
  modelled?: boolean;
  errorPaths?: string[];
  rows: Record<RowTable, number>;
}

/** What was seen; a replay over HTTP sees only the first two, a test sees everything. */
export interface ObservedAnswer {
  status: number;
  envelopeStatus: string | undefined;
  outcome?: string;
  errorPaths?: readonly string[];
  rows?: Record<RowTable, number>;
  modelled?: readonly boolean[];
}

/** Every way the observed answer differs from the expected one; empty when it matches. */
export function differencesFromExpected(
  expected: ExpectedAnswer,
  observed: ObservedAnswer,
): string[] {
  const differences: string[] = [];
  const differ = (what: string, want: unknown, got: unknown) => {
    if (JSON.stringify(want) !== JSON.stringify(got)) {
      differences.push(`${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    }
  };
  differ('status', expected.status, observed.status);
  differ('envelope status', STATUS_WORDS[expected.status], observed.envelopeStatus);
  if (observed.outcome !== undefined) differ('outcome', expected.outcome, observed.outcome);
  if (observed.errorPaths !== undefined && expected.errorPaths !== undefined) {
    differ('error paths', [...expected.errorPaths].sort(), [...observed.errorPaths].sort());
  }
  if (observed.rows !== undefined) differ('rows', inOrder(expected.rows), inOrder(observed.rows));
  if (observed.modelled !== undefined && expected.modelled !== undefined) {
    differ('modelled', [expected.modelled], observed.modelled);
  }
  return differences;
}

function inOrder(rows: Record<RowTable, number>): Record<RowTable, number> {
  return Object.fromEntries(ROW_TABLES.map((table) => [table, rows[table]])) as Record<
    RowTable,
    number
  >;
}
