import { z } from 'zod';
import { escapeInvisibleCharacters, isUtf8Text } from './capture-body.ts';
import { headerProblem, orderHeaders } from './capture-headers.ts';
import { isWellFormedEventName } from '../receiver/contract.ts';
import {
  OUTCOMES,
  ROW_TABLES,
  STATUS_FOR_OUTCOME,
  type ExpectedAnswer,
} from './expected-answer.ts';

/**
 * The captured-delivery file, format version 1 (docs/captured-fixtures.md): the one definition
 * shared by the fixture generator, the fixture test, the capture writer, replay and export.
 */

const CAPTURE_SOURCES = [
  'synthetic',
  'sandbox',
  'production',
  'simulator',
  'capture',
  'quarantine',
] as const;

type CaptureSource = (typeof CAPTURE_SOURCES)[number];

export type CapturedDelivery = {
  formatVersion: 1;
  description: string;
  source: CaptureSource;
  /** UTC ISO 8601 ending in Z. */
  capturedAt: string;
  eventName: string;
  headers: Record<string, string>;
  publicKey: string;
  expected: ExpectedAnswer;
} & ({ body: string; bodyBase64?: never } | { bodyBase64: string; body?: never });

export class CapturedDeliveryError extends Error {
  override readonly name = 'CapturedDeliveryError';
  constructor(readonly problems: readonly string[]) {
    super(`not a valid captured delivery:\n  ${problems.join('\n  ')}`);
  }
}

const rowCount = z.number().int().min(0);
const schema = z
  .strictObject({
    formatVersion: z.literal(1),
    description: z.string().min(1),
    source: z.enum(CAPTURE_SOURCES),
    capturedAt: z.iso.datetime(),
    eventName: z.string().refine(isWellFormedEventName, 'must be letters and digits, 1-64'),
    headers: z.record(z.string(), z.string()),
    body: z.string().optional(),
    bodyBase64: z.base64().optional(),
    publicKey: z.string().min(1),
    expected: z.strictObject({
      status: z.number().int(),
      outcome: z.enum(OUTCOMES),
      modelled: z.boolean().optional(),
      errorPaths: z.array(z.string()).optional(),
      rows: z.strictObject({
        webhook_deliveries: rowCount,
        npp_payments: rowCount,
        // Tables added after the format's first files: absent means none.
        payto_payments: rowCount.default(0),
        credit_rejections: rowCount,
        conflicts: rowCount.default(0),
        quarantined_deliveries: rowCount,
      }),
    }),
  })
  .superRefine((file, ctx) => {
    const problem = (message: string, path: string[]) =>
      ctx.addIssue({ code: 'custom', message, path });
    for (const [name, value] of Object.entries(file.headers)) {
      const why = headerProblem(name, value);
      if (why) problem(why, ['headers', name]);
    }
    if ((file.body === undefined) === (file.bodyBase64 === undefined)) {
      problem('exactly one of body and bodyBase64 must be present', ['body']);
    }
    if (file.bodyBase64 !== undefined) {
      const bytes = Buffer.from(file.bodyBase64, 'base64');
      // One spelling per body: readable text when it can be, canonical base64 when it cannot.
      if (bytes.toString('base64') !== file.bodyBase64) {
        problem('must be canonical padded base64 with no line breaks', ['bodyBase64']);
      } else if (isUtf8Text(bytes)) {
        problem('these bytes are UTF-8 text: record them as body, not bodyBase64', ['bodyBase64']);
      }
    }
    const { status, outcome, modelled } = file.expected;
    if (status !== STATUS_FOR_OUTCOME[outcome]) {
      problem(`outcome ${outcome} is answered ${STATUS_FOR_OUTCOME[outcome]}`, ['expected']);
    }
    if (modelled !== undefined && outcome !== 'stored') {
      problem('modelled only applies to a stored delivery', ['expected', 'modelled']);
    }
  });

/** Checks a parsed file against every rule; throws a CapturedDeliveryError listing them all. */
export function readCapturedDelivery(json: unknown): CapturedDelivery {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new CapturedDeliveryError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`),
    );
  }
  return parsed.data as CapturedDelivery;
}

/** The same, from a file's text. */
export function parseCapturedDelivery(text: string): CapturedDelivery {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CapturedDeliveryError([`not JSON: ${(error as Error).message}`]);
  }
  return readCapturedDelivery(json);
}

/**
 * The file's text: checked first (a writer never writes what a reader refuses), fields in the
 * documented order, two-space JSON, invisible characters as \uXXXX, a final newline. The same
 * delivery always gives the same text.
 */
export function serialiseCapturedDelivery(capture: CapturedDelivery): string {
  const c = readCapturedDelivery(capture);
  const { status, outcome, modelled, errorPaths, rows } = c.expected;
  const ordered = {
    formatVersion: c.formatVersion,
    description: c.description,
    source: c.source,
    capturedAt: c.capturedAt,
    eventName: c.eventName,
    headers: orderHeaders(c.headers),
    ...(c.body !== undefined ? { body: c.body } : { bodyBase64: c.bodyBase64 }),
    publicKey: c.publicKey,
    expected: {
      status,
      outcome,
      ...(modelled !== undefined && { modelled }),
      ...(errorPaths !== undefined && { errorPaths }),
      rows: Object.fromEntries(ROW_TABLES.map((table) => [table, rows[table]])),
    },
  };
  return `${escapeInvisibleCharacters(JSON.stringify(ordered, null, 2))}\n`;
}
