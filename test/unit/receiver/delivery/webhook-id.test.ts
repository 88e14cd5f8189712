import { describe, expect, it } from 'vitest';
import { parseWebhookId } from '../../../../src/receiver/delivery/webhook-id.ts';

describe('parseWebhookId', () => {
  it.each([
    ['123', '123'],
    ['007', '7'],
    [' 42\t', '42'],
    ['9223372036854775807', '9223372036854775807'],
  ])('when the header is %j, then it is the id %s', (header, value) => {
    expect(parseWebhookId(header)).toEqual({ ok: true, value });
  });

  it.each([
    ['U+00A0 before', '\u00a0123'],
    ['U+00A0 after', '123\u00a0'],
    ['U+2007 before', '\u2007123'],
    ['U+2007 inside', '12\u20073'],
    ['U+3000 after', '123\u3000'],
    ['U+3000 inside', '1\u300023'],
    ['U+FEFF before', '\ufeff123'],
    ['a line break after', '123\n'],
    ['full-width digits', '\uff11\uff12\uff13'],
  ])(
    'when the digits come with a non-ASCII space or digit (%s), then it is malformed',
    (_name, header) => {
      expect(parseWebhookId(header)).toEqual({
        ok: false,
        message: 'Webhookid must be an integer of 1 to 19 digits',
      });
    },
  );

  it.each([undefined, '', ' \t '])('when the header is %j, then it is missing', (header) => {
    expect(parseWebhookId(header)).toEqual({ ok: false, message: 'Webhookid header is missing' });
  });
});
