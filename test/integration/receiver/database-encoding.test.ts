import { describe, expect, it } from 'vitest';
import { useTestbed } from '../../support/testbed.ts';

const bed = useTestbed();

describe('the database the tests (and, without DATABASE_URL, the receiver) run on', () => {
  it('when text is stored, then the database holds it as UTF-8 and reads a body with non-ASCII letters', async () => {
    const [row] = await bed.database.query<{ encoding: string; body: unknown }>(
      `SELECT current_setting('server_encoding') AS encoding,
              delivery_body_json(convert_to('{"RemitterName":"Zoë Müller"}', 'UTF8')) AS body`,
    );
    expect(row).toEqual({ encoding: 'UTF8', body: { RemitterName: 'Zoë Müller' } });
  });
});
