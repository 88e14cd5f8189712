import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  columnName,
  contractOf,
  samplePayload,
  sampleRecord,
  TYPED_ROW_CONTRACTS,
} from '../../../../src/receiver/events/data-contract.ts';
import { findEventModel } from '../../../../src/receiver/events/registry.ts';
import { sampleRow } from '../../../support/sample-bodies.ts';

const EVENTS = TYPED_ROW_CONTRACTS.flatMap((contract) => contract.events);

describe('the data contract', () => {
  it('when the contracts are listed, then every modelled event has one, and each column one field', () => {
    expect(EVENTS).toEqual([
      'NPPReceivePayment',
      'PayToReceivePayment',
      'InboundDirectCreditRejections',
      'NPPCreditRejections',
      'InboundDirectCredit',
    ]);
    for (const event of EVENTS) expect(findEventModel(event)?.name).toBe(event);
    for (const contract of TYPED_ROW_CONTRACTS) {
      const columns = contract.columns.map((column) => column.column);
      expect(new Set(columns).size, contract.table).toBe(columns.length);
    }
  });

  it('when a key is camelCase, then its column is snake_case', () => {
    expect(columnName('payIdName')).toBe('pay_id_name');
    expect(columnName('dateTimeLocal')).toBe('date_time_local');
    expect(columnName('bsb')).toBe('bsb');
  });

  it.each(EVENTS)(
    'when the sample %s is parsed, then every column of its row holds its example, without a warning',
    (event) => {
      const outcome = findEventModel(event)?.parse(samplePayload(event));
      expect(outcome).toMatchObject({ ok: true, warnings: [] });
      if (!outcome?.ok) return;
      expect(outcome.typed.rows).toEqual([sampleRow(event)]);
    },
  );

  it('when a sample record gets overrides, then they replace fields by the platform names', () => {
    expect(sampleRecord('NPPReceivePayment', { Amount: '2' })).toMatchObject({
      Amount: '2',
      RefundDetails: { RefundId: 'RF-000312' },
    });
    const batch = samplePayload('InboundDirectCredit', [
      sampleRecord('InboundDirectCredit', { Amount: '0.0001' }),
      sampleRecord('InboundDirectCredit', { Amount: 10.5 }),
    ]);
    expect(batch).toMatchObject({ TotalCount: 2, TotalAmount: '10.5001' });
    expect(() => sampleRecord('NppReturn')).toThrow(/not a modelled event/);
  });

  it.each(TYPED_ROW_CONTRACTS.map((contract) => [contract.table, contract] as const))(
    "when the README's data model describes %s, then it names every column of the contract",
    (table, contract) => {
      const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
      const model = readme.slice(readme.indexOf('## Data model'));
      const start = model.indexOf(`- **\`${table}\`**`);
      expect(start, `README has no bullet for ${table}`).toBeGreaterThan(0);
      const bullet = model.slice(start, model.indexOf('\n- **', start + 1));
      // payto_payments is described as npp_payments' columns plus its own.
      const shared = table === 'payto_payments' ? contractOf('NPPReceivePayment')?.columns : [];
      const missing = contract.columns
        .map((column) => column.column)
        .filter((column) => !shared?.some((c) => c.column === column))
        .filter((column) => !bullet.includes(`\`${column}\``));
      expect(missing).toEqual([]);
    },
  );
});
