import { describe, expect, it } from 'vitest';
import { parseIdentifier } from '../../../../src/receiver/events/identifier.ts';

describe('parseIdentifier', () => {
  it.each([
    ['N00100000000', 'N00100000000'],
    ['0000000212749', '0000000212749'],
    [' spaced ', ' spaced '],
    [2650, '2650'],
    [0, '0'],
    [Number.MAX_SAFE_INTEGER, '9007199254740991'],
  ])('when the identifier is %j, then it is kept as the text %j', (value, text) => {
    expect(parseIdentifier(value)).toEqual({ ok: true, value: text });
  });

  it('when the identifier is whitespace only, then it is refused as blank', () => {
    expect(parseIdentifier('   ')).toEqual({
      ok: false,
      reason: 'must not be blank (got the text "   ")',
    });
  });

  it('when a numeric identifier is beyond Number.MAX_SAFE_INTEGER, then it is refused', () => {
    // As JSON.parse delivers it: the literal ...993 has already become the double ...992.
    expect(parseIdentifier(JSON.parse('9007199254740993'))).toEqual({
      ok: false,
      reason:
        'is too large to be exact as a JSON number (got the number 9007199254740992); send it as text',
    });
  });

  it('when the identifier contains a NUL character, then it is refused', () => {
    expect(parseIdentifier('N001\u0000')).toEqual({
      ok: false,
      reason: 'contains a NUL character, which cannot be stored',
    });
  });

  it.each([
    [12.5, 'the number 12.5'],
    [true, 'true'],
    [{ id: 1 }, 'an object'],
    [[1], 'a list'],
  ])('when the identifier is %j, then it is refused', (value, got) => {
    expect(parseIdentifier(value)).toEqual({
      ok: false,
      reason: `must be text or a whole number (got ${got})`,
    });
  });
});
