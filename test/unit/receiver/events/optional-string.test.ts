import { describe, expect, it } from 'vitest';
import { isAbsent, parseText } from '../../../../src/receiver/events/optional-string.ts';

describe('isAbsent', () => {
  it.each([undefined, null, ''])('when the value is %j, then it counts as absent', (value) => {
    expect(isAbsent(value)).toBe(true);
  });

  it.each([' ', '0', 0, false, {}, []])(
    'when the value is %j, then it counts as present',
    (value) => {
      expect(isAbsent(value)).toBe(false);
    },
  );
});

describe('parseText', () => {
  it.each([
    ['ABC XYZ', 'ABC XYZ'],
    ['  padded  ', '  padded  '],
    ['Zoë Ñandú 支付', 'Zoë Ñandú 支付'],
    [419001918, '419001918'],
  ])('when the value is %j, then the text is %j', (value, text) => {
    expect(parseText(value)).toEqual({ ok: true, value: text });
  });

  it('when the text contains a NUL character, then it is refused', () => {
    expect(parseText('a\u0000b')).toEqual({
      ok: false,
      reason: 'contains a NUL character, which cannot be stored',
    });
  });

  it.each([
    [true, 'true'],
    [12.5, 'the number 12.5'],
    [{ name: 'x' }, 'an object'],
    [['x'], 'a list'],
  ])('when the value is %j, then it is refused as not text', (value, got) => {
    expect(parseText(value)).toEqual({ ok: false, reason: `must be text (got ${got})` });
  });
});
