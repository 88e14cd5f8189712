import { describe, expect, it } from 'vitest';
import { parseJsonKeepingLongIntegers } from '../../../src/lib/long-integer-json.ts';

describe('JSON with long integers kept exact', () => {
  it('when an integer is beyond a double, then it is its exact text; safe integers and decimals stay numbers', () => {
    expect(
      parseJsonKeepingLongIntegers(
        '{"a":9223372036854775807,"b":-12345678901234567,"c":9007199254740991,"d":0.66,"e":1.5e300,"f":"12345678901234567890"}',
      ),
    ).toEqual({
      a: '9223372036854775807',
      b: '-12345678901234567',
      c: 9007199254740991,
      d: 0.66,
      e: 1.5e300,
      f: '12345678901234567890',
    });
  });

  it('when a key repeats, then the last value is kept, as JSON.parse keeps it', () => {
    expect(parseJsonKeepingLongIntegers('{"status":"Error","status":"Ok"}')).toEqual({
      status: 'Ok',
    });
  });

  it('when the text is not JSON, then it throws a SyntaxError, as JSON.parse does', () => {
    expect(() => parseJsonKeepingLongIntegers('{"a":')).toThrow(SyntaxError);
  });
});
