import { describe, expect, it } from 'vitest';
import { canonicalAmount, fromUnits, moneyText, toUnits } from '../../../src/lib/money.ts';

describe('exact decimal money', () => {
  it.each([
    ['12.5', 125_000n],
    ['0.0001', 1n],
    ['-0.05', -500n],
    [' 3 ', 30_000n],
    ['999999999999999.9999', 9_999_999_999_999_999_999n],
  ])('when the amount is %j, then it is %s ten-thousandths', (amount, units) => {
    expect(toUnits(amount)).toBe(units);
  });

  it.each(['1.00001', '1e3', '+1', '1,000', '', '.5'])(
    'when the text is %j, then it is refused, never rounded',
    (amount) => {
      expect(() => toUnits(amount)).toThrow(/not a decimal amount/);
    },
  );

  it('when 0.1 and 0.2 are added, then the sum is exactly 0.30', () => {
    expect(fromUnits(toUnits('0.1') + toUnits('0.2'), 2)).toBe('0.30');
  });

  it('when units are written with fixed places, then a value that would round is undefined', () => {
    expect(fromUnits(125_000n, 2)).toBe('12.50');
    expect(fromUnits(-500n, 2)).toBe('-0.05');
    expect(fromUnits(0n, 2)).toBe('0.00');
    expect(fromUnits(30_000n, 0)).toBe('3');
    expect(fromUnits(1n, 2)).toBeUndefined();
    expect(fromUnits(1n, 4)).toBe('0.0001');
  });

  it.each([
    [300_000n, '30'],
    [105_000n, '10.5'],
    [-1n, '-0.0001'],
    [0n, '0'],
  ])('when %s units are written canonically, then they read %j', (units, text) => {
    expect(canonicalAmount(units)).toBe(text);
  });

  it.each([
    ['20', '20.00'],
    ['20.0000', '20.00'],
    [200_000n, '20.00'],
    ['0.5', '0.50'],
    ['0.005', '0.0050'],
    [0n, '0.00'],
  ])('when %s is shown in a message, then it reads %j', (amount, text) => {
    expect(moneyText(amount)).toBe(text);
  });
});
