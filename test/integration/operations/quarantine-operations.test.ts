import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { assignPositions } from '../../../src/feed/assigner.ts';
import { readFeedPage } from '../../../src/feed/feed-page.ts';
import { quarantineCommand } from '../../../src/operations/quarantine/quarantine-command.ts';
import { runDescribedCommand } from '../../support/command-line.ts';
import { createDatabase } from '../../../src/lib/database/database.ts';
import { bodyBytes, freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { runMain } from '../../support/receiver-process.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * `npm run quarantine`: an operator lists, looks at, re-drives and marks handled the deliveries
 * the receiver refused and kept; a row is never deleted. Real Postgres, deliveries through the
 * real app (supertest), the command in process and once as its own process.
 */
const bed = useTestbed();
let built: TestApp;
beforeEach(() => {
  built = buildTestApp({
    db: bed.database.db,
    publicKey: bed.signer.publicKey,
    secrets: ['Basic s3cret'],
  });
});

async function command(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
  const code = await runDescribedCommand(
    quarantineCommand({ io, now: () => new Date(), withDatabase: (work) => work(bed.database.db) }),
    argv,
    io,
  );
  const text = out.join('\n');
  return {
    code,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    err: err.join('\n'),
  };
}

async function quarantine(body: object) {
  const webhookId = freshWebhookId();
  await sendDelivery(built.app, {
    body,
    webhookId,
    signWith: bed.signer.privateKey,
    secret: 'Basic s3cret',
  }).expect(400);
  const [row] = await bed.database.query<{ id: string }>(
    'SELECT id FROM quarantined_deliveries WHERE webhook_id = $1',
    [webhookId],
  );
  return { id: String(row!.id), webhookId };
}

/** A row kept by an earlier version that refused what today's model accepts. */
async function keptByAnEarlierVersion(body: object) {
  const webhookId = freshWebhookId();
  const raw = bodyBytes(body);
  const [row] = await bed.database.query<{ id: string }>(
    `INSERT INTO quarantined_deliveries (event_name, webhook_id_header, webhook_id, received_at,
       body_sha256, raw_body, content_type, headers, reasons)
     VALUES ('NPPReceivePayment', $1::text, $1::text::bigint, now() - interval '1 day', $2, $3,
       'application/json', '{}', '[{"path":"Amount","message":"refused by an older model"}]')
     RETURNING id`,
    [webhookId, createHash('sha256').update(raw).digest('hex'), raw],
  );
  return { id: String(row!.id), webhookId };
}

describe('npm run quarantine', () => {
  it('when a delivery is refused, then list and show give its reasons and body; a re-drive still refused keeps it open', async () => {
    const kept = await quarantine(nppPayment({ TransactionId: undefined }));
    const listed = await command('list');
    expect(listed.code).toBe(0);
    expect(listed.json.quarantined).toEqual([
      expect.objectContaining({
        id: kept.id,
        webhookId: kept.webhookId,
        reasons: [expect.stringContaining('TransactionId')],
        handling: null,
      }),
    ]);
    const shown = await command('show', kept.id);
    expect(shown.json).toMatchObject({ id: kept.id, body: expect.stringContaining('Amount') });
    const redriven = await command('redrive', kept.id);
    expect(redriven).toMatchObject({ code: 1, json: { outcome: 'still-refused' } });
    expect((await command('list')).json.quarantined).toHaveLength(1);
  });

  it("when a kept delivery is accepted by today's pipeline, then a re-drive stores it once (typed row, feed event) and marks it handled", async () => {
    const kept = await keptByAnEarlierVersion(
      nppPayment({ TransactionId: 'RD-1', Amount: '12.34' }),
    );
    const redriven = await command('redrive', kept.id);
    expect(redriven).toMatchObject({ code: 0, json: { outcome: 'stored', typedRows: 1 } });
    const [payment] = await bed.database.query<{ amount: string }>(
      "SELECT amount::text FROM npp_payments WHERE transaction_id = 'RD-1'",
    );
    expect(payment?.amount).toBe('12.34');
    // The payment's event, and the quarantine's resolution (the row was kept by an earlier
    // version, before quarantine events: it has no opened event).
    const events = await bed.database.query<{ type: string }>(
      'SELECT type FROM feed_events ORDER BY id',
    );
    expect(events.map((e) => e.type)).toEqual(['payment.received', 'quarantine.resolved']);
    expect((await command('list')).json.quarantined).toEqual([]);
    expect((await command('redrive', kept.id)).json).toMatchObject({ outcome: 'already-handled' });
    expect(await bed.database.count('webhook_deliveries')).toBe(1);
    // Kept, never deleted: the record that money waited.
    expect((await command('list', '--all')).json.quarantined).toEqual([
      expect.objectContaining({ id: kept.id, handling: 'redriven' }),
    ]);
  });

  it('when an operator resolves a row with a note, then it leaves the open list and is kept with the note', async () => {
    const kept = await quarantine(nppPayment({ Amount: 'lots' }));
    expect((await command('resolve', kept.id)).code).toBe(2);
    const resolved = await command('resolve', kept.id, '--note', 'refunded to the payer by hand');
    expect(resolved.code).toBe(0);
    expect((await command('resolve', kept.id, '--note', 'again')).code).toBe(1);
    expect((await command('list')).json.quarantined).toEqual([]);
    const shown = await command('show', kept.id);
    expect(shown.json).toMatchObject({
      handling: 'marked',
      handledNote: 'refunded to the payer by hand',
    });
    expect(await bed.database.count('quarantined_deliveries')).toBe(1);
  });

  it('when a delivery is quarantined and later resolved, then the feed tells a ledger both: opened with its reasons and exact body, then resolved with how', async () => {
    const body = nppPayment({ Amount: 'lots' });
    const kept = await quarantine(body);
    // The same refused delivery again: no second row, no second event.
    await sendDelivery(built.app, {
      body,
      webhookId: kept.webhookId,
      signWith: bed.signer.privateKey,
      secret: 'Basic s3cret',
    }).expect(400);
    await command('resolve', kept.id, '--note', 'payer asked to resend');
    const db = createDatabase({ url: bed.database.url, poolMax: 2 });
    try {
      await assignPositions(db);
      const page = await readFeedPage(db, { after: '0', limit: 10, maxBytes: 1_000_000 });
      const events = page.events.map(
        (e) =>
          JSON.parse(e.body) as {
            type: string;
            data: { fields: Record<string, unknown>; payloadBase64: string } & Record<
              string,
              unknown
            >;
          },
      );
      expect(events.map((e) => e.type)).toEqual(['quarantine.opened', 'quarantine.resolved']);
      const [opened, resolved] = events;
      expect(opened?.data).toMatchObject({
        eventName: 'NPPReceivePayment',
        businessKey: kept.id,
        webhookId: kept.webhookId,
        fields: { id: kept.id, reasons: [expect.objectContaining({ path: 'Amount' })] },
      });
      expect(opened?.data.fields).not.toHaveProperty('handled_at');
      expect(Buffer.from(opened?.data.payloadBase64 ?? '', 'base64')).toEqual(bodyBytes(body));
      expect(resolved?.data.fields).toMatchObject({
        handling: 'marked',
        handled_note: 'payer asked to resend',
      });
      // SQL consumers see the same events through the feed view.
      const viewed = await bed.database.query<{ type: string }>(
        'SELECT type FROM feed ORDER BY position',
      );
      expect(viewed.map((row) => row.type)).toEqual(['quarantine.opened', 'quarantine.resolved']);
    } finally {
      await db.destroy();
    }
  });

  it('when asked wrongly, then it exits 2 with the usage; a missing row exits 1', async () => {
    expect((await command('show')).code).toBe(2);
    expect((await command('list', '--limit', '0')).code).toBe(2);
    expect((await command('nonsense')).code).toBe(2);
    expect((await command('show', '999999')).code).toBe(1);
  });

  it('when run as its own process, then --help exits 0 and list reads the configured database', async () => {
    const help = runMain('quarantine', {}, { args: ['--help'] });
    expect(await help.exited).toBe(0);
    expect(help.output()).toContain('npm run quarantine -- <command>');
    await quarantine(nppPayment({ TransactionId: undefined }));
    const list = runMain(
      'quarantine',
      { DATABASE_URL: bed.database.url, LOG_LEVEL: 'silent' },
      { args: ['list'] },
    );
    expect(await list.exited, list.output()).toBe(0);
    expect(list.output()).toContain('TransactionId');
  });
});
