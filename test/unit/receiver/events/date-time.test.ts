import { describe, expect, it } from 'vitest';
import { parseProviderDateTime } from '../../../../src/receiver/events/date-time.ts';

describe('parseProviderDateTime', () => {
  it.each([
    ['2023-08-11T14:19:16', '2023-08-11 14:19:16'],
    ['2020-01-13T14:21:50.553', '2020-01-13 14:21:50.553'],
    ['2023-08-11T14:19:16.1234567', '2023-08-11 14:19:16.123456'],
    ['2023-08-11T14:19:16.9999999', '2023-08-11 14:19:16.999999'],
    ['2023-08-11T14:19:16.123456789', '2023-08-11 14:19:16.123456'],
    ['2023-08-11 14:19:16', '2023-08-11 14:19:16'],
    ['2024-02-29T00:00:00', '2024-02-29 00:00:00'],
    ['2000-02-29T23:59:59', '2000-02-29 23:59:59'],
  ])('when the ISO local text is %j, then the local time is %j', (text, local) => {
    expect(parseProviderDateTime(text)).toEqual({ ok: true, value: { local, text } });
  });

  it.each([
    ['20/10/2020 12:00:01 AM', '2020-10-20 00:00:01'],
    ['20/10/2020 12:00:01 PM', '2020-10-20 12:00:01'],
    ['15/04/2024 3:15:18 PM', '2024-04-15 15:15:18'],
    ['26/05/2023 1:53:11 AM', '2023-05-26 01:53:11'],
    ['01/01/2024 11:59:59 PM', '2024-01-01 23:59:59'],
    ['5/04/2024 03:15:18 pm', '2024-04-05 15:15:18'],
    ['29/02/2024 9:00:00 am', '2024-02-29 09:00:00'],
  ])('when the .NET AM/PM text is %j, then the local time is %j', (text, local) => {
    expect(parseProviderDateTime(text)).toEqual({ ok: true, value: { local, text } });
  });

  it('when the text has surrounding spaces, then it is read and the original text is kept', () => {
    expect(parseProviderDateTime(' 2023-08-11T14:19:16 ')).toEqual({
      ok: true,
      value: { local: '2023-08-11 14:19:16', text: ' 2023-08-11T14:19:16 ' },
    });
  });

  it.each([
    // August: AEST, UTC+10.
    ['2023-08-11T04:19:16Z', '2023-08-11 14:19:16'],
    ['2023-08-11T04:19:16.3447159Z', '2023-08-11 14:19:16.344715'],
    // January: AEDT, UTC+11, and the date rolls over.
    ['2024-01-15T13:00:00Z', '2024-01-16 00:00:00'],
    ['2023-08-11T14:19:16+10:00', '2023-08-11 14:19:16'],
    ['2023-08-11T14:19:16+1000', '2023-08-11 14:19:16'],
    ['2023-08-11T00:00:00-05:30', '2023-08-11 15:30:00'],
    // The morning daylight saving starts: 02:00 AEST does not exist, 2:30 UTC+10 is 3:30 AEDT.
    ['2023-10-01T02:30:00+10:00', '2023-10-01 03:30:00'],
  ])(
    'when an ISO value carries a zone (%j), then it is converted to Sydney time %j',
    (text, local) => {
      expect(parseProviderDateTime(text)).toEqual({ ok: true, value: { local, text } });
    },
  );

  it.each([
    '2023-02-29T10:00:00',
    '1900-02-29T10:00:00',
    '2023-04-31T10:00:00',
    '2023-13-01T10:00:00',
    '2023-00-10T10:00:00',
    '2023-08-11T24:00:00',
    '2023-08-11T23:60:00',
    '2023-08-11T23:59:60',
    '0000-01-01T00:00:00',
    '31/02/2024 10:00:00 AM',
    '29/02/2023 10:00:00 AM',
    '31/04/2024 10:00:00 AM',
    '10/13/2024 10:00:00 AM',
  ])('when the text %j is not a real date and time, then it is refused as such', (text) => {
    expect(parseProviderDateTime(text)).toEqual({
      ok: false,
      reason: `is not a real date and time (got the text ${JSON.stringify(text)})`,
    });
  });

  it.each(['20/10/2020 0:00:01 AM', '20/10/2020 13:00:01 PM'])(
    'when the AM/PM hour is outside 1-12 (%j), then it is refused',
    (text) => {
      expect(parseProviderDateTime(text)).toEqual({
        ok: false,
        reason: `has an hour outside 1-12 for an AM/PM time (got the text ${JSON.stringify(text)})`,
      });
    },
  );

  it('when the zone offset is impossible, then it is refused', () => {
    expect(parseProviderDateTime('2023-08-11T14:19:16+25:00')).toMatchObject({
      ok: false,
      reason: 'has an impossible zone offset (got the text "2023-08-11T14:19:16+25:00")',
    });
  });

  it.each([
    ['11/08/2023 14:19:16', '2023-08-11 14:19:16'],
    ['11/08/2023 2:19:16', '2023-08-11 02:19:16'],
    ['11/08/2023 14:19', '2023-08-11 14:19:00'],
    ['11/08/2023 0:00:00', '2023-08-11 00:00:00'],
    ['2023-08-11T14:19', '2023-08-11 14:19:00'],
    ['2023-08-11 14:19', '2023-08-11 14:19:00'],
    ['2023-08-11T14:19:16.1234567890123', '2023-08-11 14:19:16.123456'],
    ['20/10/2020 12:01 PM', '2020-10-20 12:01:00'],
  ])(
    'when the text is %j (24-hour, no seconds or a long fraction), then it is read as %j',
    (text, local) => {
      expect(parseProviderDateTime(text)).toEqual({ ok: true, value: { local, text } });
    },
  );

  it.each([
    ['2023-08-11', '2023-08-11 00:00:00'],
    ['11/08/2023', '2023-08-11 00:00:00'],
  ])(
    'when the text is a date alone (%j), then it is read as midnight with a note',
    (text, local) => {
      expect(parseProviderDateTime(text)).toEqual({
        ok: true,
        value: { local, text, note: 'has no time of day; stored as midnight, Sydney time' },
      });
    },
  );

  it.each(['11/08/2023 24:00:00', '11/08/2023 14:60'])(
    'when a 24-hour time is impossible (%j), then it is refused as not real',
    (text) => {
      expect(parseProviderDateTime(text)).toMatchObject({ ok: false });
    },
  );

  it.each([
    '2023-8-11T14:19:16',
    '2023-08-11T14:19:16.',
    '2023-08-11T14',
    '11-08-2023 2:19:16 PM',
    'yesterday',
    '',
  ])('when the text %j is in neither form, then it is refused naming both forms', (text) => {
    expect(parseProviderDateTime(text)).toEqual({
      ok: false,
      reason: `must be a date-time like "2023-08-11T14:19:16" or "20/10/2020 12:00:01 AM" (got the text ${JSON.stringify(text)})`,
    });
  });

  it.each([
    [1691727556, 'the number 1691727556'],
    [null, 'null'],
    [{}, 'an object'],
  ])('when the value is not text (%j), then it is refused', (value, described) => {
    expect(parseProviderDateTime(value)).toEqual({
      ok: false,
      reason: `must be a date-time like "2023-08-11T14:19:16" or "20/10/2020 12:00:01 AM" (got ${described})`,
    });
  });
});
