import { describe, expect, it } from 'vitest';
import { feedBody } from '../../../src/feed/delivery-body.ts';
import { jsonText, RawJson } from '../../../src/feed/json-text.ts';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const rendered = (value: ReturnType<typeof feedBody>) => jsonText(value);

describe("a delivery's body in its feed event", () => {
  it('when the body is JSON as sent, then it is carried as the sender wrote it, numbers and key order kept', () => {
    const text = '{"b":1.10,"a":12345678901.1234}';
    expect(rendered(feedBody({ payload: null, raw_body: bytes(text) }))).toBe(
      `{"payload":${text}}`,
    );
  });

  it('when the body starts with a UTF-8 byte-order mark, then the mark is left out of the JSON and the rest is kept', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes('{"a":1}')]);
    expect(rendered(feedBody({ payload: null, raw_body: body }))).toBe('{"payload":{"a":1}}');
  });

  it('when the stored bytes are not JSON, then the exact bytes are carried as base64 (the envelope stays JSON)', () => {
    const body = bytes('{"a":');
    expect(feedBody({ payload: null, raw_body: body })).toEqual({
      payloadBase64: body.toString('base64'),
    });
  });

  it('when the body holds a NUL, then the exact bytes are carried as base64', () => {
    const body = bytes('{"a":"x\\u0000y"}');
    expect(feedBody({ payload: null, raw_body: body })).toEqual({
      payloadBase64: body.toString('base64'),
    });
  });

  it('when an earlier release kept a jsonb copy, then that copy is carried', () => {
    expect(feedBody({ payload: '{"a": 1}', raw_body: null })).toEqual({
      payload: new RawJson('{"a": 1}'),
    });
  });

  it('when the raw request was pruned, or the delivery is unknown, then the payload is null', () => {
    expect(feedBody({ payload: null, raw_body: null })).toEqual({ payload: null });
    expect(feedBody(undefined)).toEqual({ payload: null });
  });
});
