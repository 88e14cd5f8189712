import { describe, expect, it } from 'vitest';
import { parseMoney } from '../../../src/lib/money.ts';

const EXPECTED = 'must be a number or a decimal string with at most 4 decimal places';

describe('parseMoney', () => {
  it.each([
    ['10.0000', '10'],
    ['10.5000', '10.5'],
    ['010.50', '10.5'],
    ['0.0001', '0.0001'],
    ['0', '0'],
    ['0.0000', '0'],
    ['-0.00', '0'],
    ['-12.34', '-12.34'],
    ['264.97', '264.97'],
    ['10.00000', '10'],
    ['999999999999999.9999', '999999999999999.9999'],
    ['123456789012345678', undefined],
  ])('when the decimal string is %j, then the amount is %j', (text, amount) => {
    if (amount === undefined) {
      expect(parseMoney(text)).toEqual({
        ok: false,
        reason: `has more than 15 digits before the decimal point (got the text "${text}")`,
      });
    } else {
      expect(parseMoney(text)).toEqual({ ok: true, value: amount });
    }
  });

  it.each([
    [1000.12, '1000.12'],
    [10.5, '10.5'],
    [10, '10'],
    [0.01, '0.01'],
    [0.0001, '0.0001'],
    [-5.25, '-5.25'],
    [-0, '0'],
    [12345678901.1234, '12345678901.1234'],
    [999999999999999, '999999999999999'],
  ])('when the JSON number is %d, then the amount is %j', (value, amount) => {
    expect(parseMoney(value)).toEqual({ ok: true, value: amount });
  });

  it('when a literal like 10.5 has gone through JSON.parse, then it comes out exactly', () => {
    const parsed: unknown = JSON.parse('{"Amount": 1000.1}');
    expect(parseMoney((parsed as { Amount: unknown }).Amount)).toEqual({
      ok: true,
      value: '1000.1',
    });
  });

  it.each([
    ['1.23456', 'the text "1.23456"'],
    ['0.00001', 'the text "0.00001"'],
  ])(
    'when the string %j has more than 4 decimal places, then it is refused, not rounded',
    (text, got) => {
      expect(parseMoney(text)).toEqual({
        ok: false,
        reason: `has more than 4 decimal places (got ${got}); it is refused rather than rounded`,
      });
    },
  );

  it.each([
    [1.23456, 'the number 1.23456'],
    [0.1 + 0.2, 'the number 0.30000000000000004'],
  ])('when the JSON number %d has more than 4 decimal places, then it is refused', (value, got) => {
    expect(parseMoney(value)).toEqual({
      ok: false,
      reason: `has more than 4 decimal places (got ${got}); it is refused rather than rounded`,
    });
  });

  it.each([
    // Beyond Number.MAX_SAFE_INTEGER: JSON.parse has already turned ...993 into ...992.
    [JSON.parse('9007199254740993') as number, '9007199254740992'],
    [1234567890123456, '1234567890123456'],
    [123456789012.1234, '123456789012.1234'],
    [1234567890123.456, '1234567890123.456'],
  ])(
    'when the JSON number %d has more than 15 significant digits, then it is refused',
    (value, shown) => {
      expect(parseMoney(value)).toEqual({
        ok: false,
        reason: `has more digits than a JSON number carries exactly (got the number ${shown}); send it as a decimal string`,
      });
    },
  );

  it.each([
    [1e21, 'is out of range for an amount (got the number 1e+21)'],
    [1e-7, 'is out of range for an amount (got the number 1e-7)'],
    [Number.NaN, `${EXPECTED} (got the number NaN)`],
    [Number.POSITIVE_INFINITY, `${EXPECTED} (got the number Infinity)`],
  ])('when the number %d cannot be an exact amount, then it is refused', (value, reason) => {
    expect(parseMoney(value)).toEqual({ ok: false, reason });
  });

  it.each([
    'ten',
    '1e3',
    '1,000.00',
    '+10.00',
    ' 10.00',
    '10.',
    '.5',
    'NaN',
    'Infinity',
    '$10.00',
    '',
    '--1',
  ])('when the string %j is not a plain decimal, then it is refused', (text) => {
    expect(parseMoney(text)).toEqual({
      ok: false,
      reason: `${EXPECTED} (got the text ${JSON.stringify(text)})`,
    });
  });

  it.each([
    [true, 'true'],
    [null, 'null'],
    [{ value: 10 }, 'an object'],
    [[10], 'a list'],
  ])('when the value is %j, then it is refused as not an amount', (value, got) => {
    expect(parseMoney(value)).toEqual({ ok: false, reason: `${EXPECTED} (got ${got})` });
  });
});
