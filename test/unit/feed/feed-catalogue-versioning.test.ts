import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_VERSION, feedCatalogue } from '../../../src/feed/catalogue/catalogue.ts';
import { schemaSignatures } from '../../support/catalogue-signatures.ts';

/**
 * The versioning rule (docs/feed-catalogue.md), enforced: the committed snapshot of what v1
 * promises (every property path of every event type and its type) against the catalogue the
 * code generates. Removing an event type or a field, changing a field's type, letting a field be
 * null or absent that was not, or dropping an enum value fails; additions must be written into
 * the snapshot, so that what v1 promises stays complete. The snapshot is written by hand, never
 * regenerated: a change to an existing line of it is a breaking change, which needs v2.
 */

type Signatures = Readonly<Record<string, Readonly<Record<string, string>>>>;

const RULE = 'docs/feed-catalogue.md';
const SNAPSHOT = path.join(
  import.meta.dirname,
  `feed-catalogue-${CATALOGUE_VERSION}.snapshot.json`,
);

/** Enums the rule lets grow within a version: a conflict's table gains one per new event type. */
const EXTENSIBLE_ENUMS = new Set(['conflict.detected data.fields.table_name']);

const generated = (): Signatures =>
  Object.fromEntries(
    Object.entries(feedCatalogue().types).map(([type, schema]) => [type, schemaSignatures(schema)]),
  );

const enumValues = (signature: string) => /^enum\((.*)\)$/.exec(signature)?.[1]?.split(',');

/** Whether `now` keeps every promise `promised` made (a subset of values for an open enum). */
function keeps(where: string, promised: string, now: string): boolean {
  if (promised === now) return true;
  // Optional to always present: nothing a consumer relied on is gone.
  if (promised.startsWith('?') && promised.slice(1) === now) return true;
  const [before, after] = [enumValues(promised), enumValues(now)];
  return (
    EXTENSIBLE_ENUMS.has(where) &&
    before !== undefined &&
    after !== undefined &&
    before.every((value) => after.includes(value))
  );
}

/** What `now` breaks of `promised` (needs a new version), and what it adds (allowed, to record). */
function compareCatalogues(promised: Signatures, now: Signatures) {
  const breaking: string[] = [];
  const added: string[] = [];
  for (const [type, fields] of Object.entries(promised)) {
    const current = now[type];
    if (current === undefined) {
      breaking.push(`${type}: the event type is gone`);
      continue;
    }
    for (const [field, signature] of Object.entries(fields)) {
      const got = current[field];
      if (got === undefined) breaking.push(`${type} ${field}: removed (was ${signature})`);
      else if (!keeps(`${type} ${field}`, signature, got)) {
        breaking.push(`${type} ${field}: was ${signature}, is now ${got}`);
      }
    }
    for (const [field, signature] of Object.entries(current)) {
      if (fields[field] === undefined) added.push(`${type} ${field}: ${signature}`);
    }
  }
  for (const type of Object.keys(now)) {
    if (promised[type] === undefined) added.push(`${type}: a new event type`);
  }
  return { breaking, added };
}

describe(`the feed event catalogue, ${CATALOGUE_VERSION}`, () => {
  it(`when the generated catalogue is compared with what ${CATALOGUE_VERSION} promised, then nothing is removed or retyped, and every addition is recorded`, () => {
    const snapshot = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as {
      version: string;
      types: Signatures;
    };
    expect(snapshot.version).toBe(CATALOGUE_VERSION);
    const { breaking, added } = compareCatalogues(snapshot.types, generated());
    expect(
      breaking,
      `A breaking change to the feed event catalogue ${CATALOGUE_VERSION}: ${RULE} says removing or renaming a field or changing its type or meaning needs a new version, served beside ${CATALOGUE_VERSION}.`,
    ).toEqual([]);
    expect(
      added,
      `New fields or event types are allowed within ${CATALOGUE_VERSION} (${RULE}): add them to ${path.relative(process.cwd(), SNAPSHOT)} so that ${CATALOGUE_VERSION} keeps promising them.`,
    ).toEqual([]);
  });

  it('when a field is removed, retyped, made nullable or an enum loses a value, then the comparison names each as breaking', () => {
    const promised = generated();
    const now = structuredClone(promised) as Record<string, Record<string, string>>;
    const payment = now['payment.received']!;
    delete payment['data.fields.pay_id'];
    payment['data.fields.amount'] = 'number';
    payment['data.fields.transaction_id'] = 'text|null';
    payment['data.payload'] = 'any';
    now['quarantine.resolved']!['data.fields.handling'] = 'enum(marked)';
    delete now['event.unmodelled'];

    const { breaking, added } = compareCatalogues(promised, now);
    expect(breaking).toEqual([
      'payment.received data.fields.transaction_id: was text, is now text|null',
      'payment.received data.fields.amount: was money, is now number',
      'payment.received data.fields.pay_id: removed (was text|null)',
      'event.unmodelled: the event type is gone',
      'quarantine.resolved data.fields.handling: was enum(marked,redriven), is now enum(marked)',
    ]);
    // An optional field that is now always there breaks nothing.
    expect(added).toEqual([]);
  });

  it('when a field or an event type is added, or an open enum gains a value, then nothing breaks and the additions are named', () => {
    const promised = generated();
    const now = structuredClone(promised) as Record<string, Record<string, string>>;
    now['payment.received']!['data.fields.new_column'] = 'text|null';
    now['conflict.detected']!['data.fields.table_name'] =
      'enum(credit_rejections,direct_credits,npp_payments,payto_payments,refunds)';
    now['refund.received'] = { id: 'string' };
    // A closed enum may not grow within a version.
    now['quarantine.resolved']!['data.fields.handling'] = 'enum(marked,redriven,dropped)';

    const { breaking, added } = compareCatalogues(promised, now);
    expect(breaking).toEqual([
      'quarantine.resolved data.fields.handling: was enum(marked,redriven), is now enum(marked,redriven,dropped)',
    ]);
    expect(added).toEqual([
      'payment.received data.fields.new_column: text|null',
      'refund.received: a new event type',
    ]);
  });
});
