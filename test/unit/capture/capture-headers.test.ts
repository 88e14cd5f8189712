import { describe, expect, it } from 'vitest';
import { captureHeaders } from '../../../src/capture/capture-headers.ts';

describe('captureHeaders', () => {
  it('when a request carries credentials and transport headers, then only the delivery headers are kept, in the canonical order', () => {
    const kept = captureHeaders({
      host: '127.0.0.1:3000',
      'content-length': '12',
      connection: 'keep-alive',
      'x-trace': 'abc',
      authorisation: 'Basic secret',
      Authorization: 'Bearer secret',
      cookie: 'a=b',
      'proxy-authorization': 'Basic p',
      'verification-signature': 'c2ln',
      Webhookid: '42',
      'content-type': 'application/json',
      'x-multi': ['a', 'b'],
    });

    expect(kept).toEqual({
      'content-type': 'application/json',
      webhookid: '42',
      'verification-signature': 'c2ln',
      'x-multi': 'a, b',
      'x-trace': 'abc',
    });
    expect(Object.keys(kept)).toEqual([
      'content-type',
      'webhookid',
      'verification-signature',
      'x-multi',
      'x-trace',
    ]);
  });

  it('when a header is absent, then it stays absent', () => {
    expect(captureHeaders({ 'content-type': undefined, 'verification-signature': 's' })).toEqual({
      'verification-signature': 's',
    });
  });
});
