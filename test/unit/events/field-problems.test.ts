import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { toFieldProblems } from '../../../src/events/field-problems.ts';
import { optional, required } from '../../../src/events/fields.ts';
import { parseMoney } from '../../../src/events/money.ts';

function problemsOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected the input to be refused');
  return toFieldProblems(result.error.issues);
}

describe('toFieldProblems', () => {
  const item = z.looseObject({ id: required(parseMoney), note: optional(parseMoney) });

  it('when a top-level field is missing, then the path is its name and the message says so', () => {
    expect(problemsOf(item, { note: 1 })).toEqual([{ path: 'id', message: 'id is required' }]);
  });

  it('when a field in an array element is wrong, then the path is "[index].field"', () => {
    expect(problemsOf(z.array(item), [{ id: 1 }, { id: 1 }, { id: 'x' }])).toEqual([
      {
        path: '[2].id',
        message:
          '[2].id must be a number or a decimal string with at most 4 decimal places (got the text "x")',
      },
    ]);
  });

  it('when a nested field is wrong, then the path joins the keys with dots', () => {
    const outer = z.looseObject({ RefundDetails: item });
    expect(problemsOf(outer, { RefundDetails: { id: 1, note: 'x' } })).toEqual([
      {
        path: 'RefundDetails.note',
        message:
          'RefundDetails.note must be a number or a decimal string with at most 4 decimal places (got the text "x")',
      },
    ]);
  });

  it('when the body itself has the wrong shape, then the path is "" and the message names the body', () => {
    const body = z.looseObject({}, { error: 'must be a JSON object' });
    expect(problemsOf(body, [])).toEqual([{ path: '', message: 'The body must be a JSON object' }]);
  });

  it("when zod reports a missing key in its own words, then the message is 'is required'", () => {
    const strict = z.looseObject({ id: z.unknown().transform((value) => value) });
    expect(problemsOf(strict, {})).toEqual([{ path: 'id', message: 'id is required' }]);
  });

  it('when several fields are wrong, then every problem is listed', () => {
    expect(problemsOf(item, { note: true }).map((p) => p.path)).toEqual(['id', 'note']);
  });
});

describe('required and optional fields', () => {
  const schema = z.looseObject({ need: required(parseMoney), maybe: optional(parseMoney) });

  it.each([
    [{ need: '1' }, { need: '1', maybe: null }],
    [
      { need: '1', maybe: null },
      { need: '1', maybe: null },
    ],
    [
      { need: '1', maybe: '' },
      { need: '1', maybe: null },
    ],
    [
      { need: '1', maybe: '2.50' },
      { need: '1', maybe: '2.5' },
    ],
  ])('when the input is %j, then the output is %j', (input, output) => {
    expect(schema.parse(input)).toEqual(output);
  });

  it.each([
    [{}, 'need is required'],
    [{ need: null }, 'need is required (got null)'],
    [{ need: '' }, 'need is required (got the text "")'],
  ])('when a required field is %j, then it is refused as required', (input, message) => {
    expect(problemsOf(schema, input)).toEqual([{ path: 'need', message }]);
  });
});
