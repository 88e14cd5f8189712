import { describe, expect, it } from 'vitest';
import {
  ParameterBuffers,
  ParameterBytes,
} from '../../../../src/receiver/storage/parameter-bytes.ts';

const STRINGS = [
  '',
  'N00100537810',
  'quote " and backslash \\',
  'tab\tnewline\ncontrol\u0001delete\u007f',
  'é ünïcode ☃ and 😀',
  'lone \ud800 surrogate',
];

/** The JSON text of a jsonb parameter (after its version byte). */
const jsonText = (parameter: Buffer) => {
  expect(parameter[0]).toBe(1);
  return parameter.subarray(1).toString('utf8');
};

describe('statement parameters written as bytes', () => {
  it('when strings are written, then each is the UTF-8 of what JSON.stringify writes', () => {
    for (const value of STRINGS) {
      const bytes = new ParameterBytes(16);
      expect(jsonText(bytes.beginJsonb().string(value).end())).toBe(JSON.stringify(value));
    }
  });

  it('when numbers, nulls, booleans and other values are written, then they read as JSON.stringify writes them', () => {
    const bytes = new ParameterBytes(16);
    bytes
      .beginJsonb()
      .ascii('[')
      .number(12)
      .ascii(',')
      .number(Number.NaN)
      .ascii(',')
      .number(null)
      .ascii(',')
      .nullableString(null)
      .ascii(',')
      .boolean(false)
      .ascii(',')
      .json([{ path: 'A', message: 'é' }])
      .ascii(']');
    expect(jsonText(bytes.end())).toBe('[12,null,null,null,false,[{"path":"A","message":"é"}]]');
  });

  it('when a parameter outgrows the buffer, then it and the parameters ended before it keep their bytes', () => {
    const bytes = new ParameterBytes(8);
    const body = Buffer.from('the body, longer than the first guess');
    const first = bytes.beginBytea().raw(body).end();
    const second = bytes.beginJsonb().string('x'.repeat(1000)).end();
    expect(first.equals(body)).toBe(true);
    expect(jsonText(second)).toBe(JSON.stringify('x'.repeat(1000)));
  });
});

describe('parameter buffers kept for the next statement', () => {
  it('when a statement is done, then its buffer serves the next one that fits, and no more are kept than asked', () => {
    const buffers = new ParameterBuffers(1);
    const first = new ParameterBytes(4096, buffers);
    const second = new ParameterBytes(4096, buffers);
    const firstBytes = first.beginBytea().raw(Buffer.from('one')).end();
    second.beginBytea().raw(Buffer.from('two')).end();
    first.release();
    second.release();
    const third = new ParameterBytes(1000, buffers);
    expect(third.beginBytea().raw(Buffer.from('three')).end().buffer).toBe(firstBytes.buffer);
    const fourth = new ParameterBytes(1000, buffers);
    expect(fourth.beginBytea().raw(Buffer.from('four')).end().buffer).not.toBe(firstBytes.buffer);
  });
});
