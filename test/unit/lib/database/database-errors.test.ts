import { describe, expect, it } from 'vitest';
import {
  isDeterministicRefusal,
  isRowFault,
} from '../../../../src/lib/database/database-errors.ts';

const withCode = (code: string) => Object.assign(new Error(code), { code });

describe('database error classes', () => {
  it.each([
    ['22003 numeric out of range', withCode('22003'), true, true],
    ['22021 NUL in text', withCode('22021'), true, true],
    ['54000 index entry too large', withCode('54000'), true, true],
    ['54001 too deeply nested', withCode('54001'), true, true],
    ['23502 not-null violation', withCode('23502'), true, true],
    ['23514 check violation', withCode('23514'), true, true],
    ['23505 unique violation (a race)', withCode('23505'), true, false],
    ['23503 foreign key violation', withCode('23503'), true, false],
    ['40001 serialisation failure', withCode('40001'), true, false],
    ['40P01 deadlock', withCode('40P01'), true, false],
    ['08006 connection failure', withCode('08006'), false, false],
    ['57P01 admin shutdown', withCode('57P01'), false, false],
    ['57014 statement timeout', withCode('57014'), false, false],
    ['53300 too many connections', withCode('53300'), false, false],
    ['42P01 undefined table (our bug)', withCode('42P01'), false, false],
    ['EPIPE (a socket code, not a SQLSTATE)', withCode('EPIPE'), false, false],
    [
      'Connection terminated unexpectedly',
      new Error('Connection terminated unexpectedly'),
      false,
      false,
    ],
    ['a connect timeout', new Error('timeout exceeded when trying to connect'), false, false],
    ['not an error', 'text', false, false],
  ])(
    'when the database fails with %s, then retry-each is %s and quarantine is %s',
    (_name, error, rowFault, deterministic) => {
      expect(isRowFault(error)).toBe(rowFault);
      expect(isDeterministicRefusal(error)).toBe(deterministic);
    },
  );
});
