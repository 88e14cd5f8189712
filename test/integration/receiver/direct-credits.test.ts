import { beforeEach, describe, expect, it } from 'vitest';
import { freshWebhookId, sendDelivery } from '../../support/deliveries.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * InboundDirectCredit (money in over the direct-entry rail), modelled: the published batch
 * `{TotalCount, TotalAmount, DirectCreditDetails: [record, …]}` becomes one direct_credits row
 * per record (every field, money exact, identifiers as text) and one direct_credit_batches row,
 * and the records count as payments received.
 */

const bed = useTestbed();
let built: TestApp;

beforeEach(() => {
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
});

const send = (body: string | object, webhookId = freshWebhookId(), event = 'InboundDirectCredit') =>
  sendDelivery(built.app, { event, body, webhookId, signWith: bed.signer.privateKey });

const deliveryLine = () => built.logs.findLast((line) => 'outcome' in line) ?? {};

const directCredits = () => bed.database.rows('direct_credits', 'transaction_id');

/** The public reference's example, every field with a value, written as the platform writes it. */
const PUBLISHED_BATCH = `{
  "TotalCount": 2,
  "TotalAmount": "12345678901.1235",
  "DirectCreditDetails": [
    {
      "TransactionId": "D00100537784",
      "BatchId": "0000000212749",
      "DateTime": "2020-01-13T14:21:50.553",
      "Bsb": "802-985",
      "AccountNumber": 419001918,
      "AccountName": "ACME RECEIVABLES",
      "TransactionCode": "50",
      "Amount": "12345678901.1234",
      "LodgementRef": "INV 9001 ${'R'.repeat(260)}",
      "RemitterName": "WIDGETS CO",
      "NameOfUserSupplyingFile": "WIDGETS BANK",
      "NumberOfUserSupplyingFile": "123079",
      "DescriptionOfEntriesOnFile": "PAYMENTS",
      "Indicator": "W",
      "WithholdingTaxAmount": 12.50,
      "SourceBsb": "123-123",
      "SourceAccountNumber": "0099887766",
      "ReceiptNumber": "0005678200"
    },
    {
      "TransactionId": "D00100537785",
      "BatchId": "0000000212749",
      "DateTime": "2020-01-13T14:21:51",
      "Bsb": "802-985",
      "AccountNumber": "0419001918",
      "AccountName": "ACME RECEIVABLES",
      "TransactionCode": "50",
      "Amount": 0.0001,
      "LodgementRef": "",
      "RemitterName": "GADGETS PTY LTD",
      "NameOfUserSupplyingFile": "GADGETS BANK",
      "NumberOfUserSupplyingFile": 301500,
      "DescriptionOfEntriesOnFile": "SUPPLIERS",
      "Indicator": "",
      "WithholdingTaxAmount": 0,
      "SourceBsb": "062-000",
      "SourceAccountNumber": "12345678",
      "ReceiptNumber": 5678201
    }
  ]
}`;

describe('a direct-credit batch, stored typed', () => {
  it('when the published batch is delivered, then each record is a direct_credits row with every field, money exact and identifiers as sent', async () => {
    const webhookId = freshWebhookId();
    await send(PUBLISHED_BATCH, webhookId).expect(200);

    expect(await directCredits()).toEqual([
      {
        transaction_id: 'D00100537784',
        webhook_id: webhookId,
        batch_id: '0000000212749',
        date_time_local: '2020-01-13 14:21:50.553',
        date_time_text: '2020-01-13T14:21:50.553',
        bsb: '802-985',
        account_number: '419001918',
        account_name: 'ACME RECEIVABLES',
        transaction_code: '50',
        amount: '12345678901.1234',
        lodgement_ref: `INV 9001 ${'R'.repeat(260)}`,
        remitter_name: 'WIDGETS CO',
        name_of_user_supplying_file: 'WIDGETS BANK',
        number_of_user_supplying_file: '123079',
        description_of_entries_on_file: 'PAYMENTS',
        indicator: 'W',
        withholding_tax_amount: '12.5',
        source_bsb: '123-123',
        source_account_number: '0099887766',
        receipt_number: '0005678200',
        received_at: expect.any(Date),
      },
      expect.objectContaining({
        transaction_id: 'D00100537785',
        date_time_local: '2020-01-13 14:21:51',
        account_number: '0419001918',
        amount: '0.0001',
        lodgement_ref: null,
        number_of_user_supplying_file: '301500',
        indicator: null,
        withholding_tax_amount: '0',
        receipt_number: '5678201',
      }),
    ]);
    expect(await bed.database.rows('direct_credit_batches')).toEqual([
      {
        webhook_id: webhookId,
        total_count: 2,
        total_amount: '12345678901.1235',
        record_count: 2,
        received_at: expect.any(Date),
      },
    ]);
    const [delivery] = await bed.database.query(
      'SELECT event_name, modelled, warnings FROM webhook_deliveries',
    );
    expect(delivery).toEqual({ event_name: 'InboundDirectCredit', modelled: true, warnings: [] });
    expect(deliveryLine()).toMatchObject({ outcome: 'stored', typedRowsInserted: 2 });
  });

  it('when the event is posted under another spelling, then it is stored under its canonical name', async () => {
    await send(PUBLISHED_BATCH, freshWebhookId(), 'inbounddirectcredit').expect(200);
    const [delivery] = await bed.database.query('SELECT event_name FROM webhook_deliveries');
    expect(delivery).toEqual({ event_name: 'InboundDirectCredit' });
    expect(await bed.database.count('direct_credits')).toBe(2);
  });

  it('when a batch holds no records, then the delivery and its batch are stored and no payment', async () => {
    await send({ TotalCount: 0, TotalAmount: 0, DirectCreditDetails: [] }).expect(200);
    expect(await bed.database.count('direct_credits')).toBe(0);
    expect(await bed.database.rows('direct_credit_batches')).toEqual([
      expect.objectContaining({ total_count: 0, total_amount: '0', record_count: 0 }),
    ]);
  });
});

describe('duplicates and conflicts', () => {
  it('when the same delivery comes again, or its body under a new Webhookid, then it is stored once', async () => {
    const webhookId = freshWebhookId();
    await send(PUBLISHED_BATCH, webhookId).expect(200);
    await send(PUBLISHED_BATCH, webhookId).expect(200);
    expect(deliveryLine()).toMatchObject({ outcome: 'duplicate' });
    await send(PUBLISHED_BATCH).expect(200);
    expect(deliveryLine()).toMatchObject({ outcome: 'duplicate', replayOf: webhookId });

    expect(await bed.database.count('webhook_deliveries')).toBe(1);
    expect(await bed.database.count('direct_credits')).toBe(2);
    expect(await bed.database.count('direct_credit_batches')).toBe(1);
    expect(await bed.database.count('feed_events')).toBe(2);
  });

  it('when a record comes again in another batch, then unchanged it is already stored, changed it is a conflict and the first row stands', async () => {
    const first = freshWebhookId();
    const record = { TransactionId: 'D00100600001', BatchId: '0000000300001', Amount: 25.5 };
    await send({ TotalCount: 1, TotalAmount: 25.5, DirectCreditDetails: [record] }, first).expect(
      200,
    );

    // The same record (its amount in another form) beside a new one: no conflict.
    const fresh = { TransactionId: 'D00100600002', Amount: 1 };
    await send({
      TotalCount: 2,
      TotalAmount: 26.5,
      DirectCreditDetails: [{ ...record, Amount: '25.50' }, fresh],
    }).expect(200);
    expect(deliveryLine()).toMatchObject({ typedRowsInserted: 1, typedRowsAlreadyStored: 1 });
    expect(deliveryLine()).not.toHaveProperty('conflicts');

    // Changed: recorded, the first row stands.
    const changed = freshWebhookId();
    await send(
      { TotalCount: 1, TotalAmount: 99, DirectCreditDetails: [{ ...record, Amount: 99 }] },
      changed,
    ).expect(200);
    expect(deliveryLine()).toMatchObject({ outcome: 'stored', conflicts: 1 });
    expect(
      await bed.database.query(
        'SELECT transaction_id, amount, webhook_id::text FROM direct_credits ORDER BY 1',
      ),
    ).toEqual([
      { transaction_id: 'D00100600001', amount: '25.5', webhook_id: first },
      expect.objectContaining({ transaction_id: 'D00100600002' }),
    ]);
    expect(
      await bed.database.query(
        `SELECT table_name, event_name, business_key, first_webhook_id::text, webhook_id::text,
           record_index, differences FROM conflicts`,
      ),
    ).toEqual([
      {
        table_name: 'direct_credits',
        event_name: 'InboundDirectCredit',
        business_key: 'D00100600001',
        first_webhook_id: first,
        webhook_id: changed,
        record_index: 0,
        differences: [{ field: 'amount', first: 25.5, second: 99 }],
      },
    ]);
  });

  it('when one batch holds a TransactionId twice with different amounts, then the first is stored and the second is a conflict within the delivery', async () => {
    await send({
      TotalCount: 2,
      TotalAmount: 11,
      DirectCreditDetails: [
        { TransactionId: 'D00100600010', Amount: 5 },
        { TransactionId: 'D00100600010', Amount: 6 },
      ],
    }).expect(200);
    expect(await bed.database.query('SELECT amount FROM direct_credits')).toEqual([
      { amount: '5' },
    ]);
    expect(await bed.database.query('SELECT record_index, differences FROM conflicts')).toEqual([
      { record_index: 1, differences: [{ field: 'amount', first: 5, second: 6 }] },
    ]);
  });
});

describe('leniency', () => {
  it('when a record has odd optional values and the totals do not add up, then it is stored, those columns null, with warnings', async () => {
    const body = `{"TotalCount":"two","TotalAmount":99,"DirectCreditDetails":[{"TransactionId":"D00100700001","Amount":"10.5000","BatchId":1.5,"DateTime":"2020-02-30T10:00:00","AccountNumber":{"x":1},"Indicator":true,"WithholdingTaxAmount":"n/a","ReceiptNumber":12345678901234567890,"Bsb":null,"RemitterName":"","SourceBsb":"062-000"}]}`;
    await send(body).expect(200);

    expect(await directCredits()).toEqual([
      expect.objectContaining({
        transaction_id: 'D00100700001',
        amount: '10.5',
        batch_id: null,
        date_time_local: null,
        date_time_text: '2020-02-30T10:00:00',
        account_number: null,
        indicator: null,
        withholding_tax_amount: null,
        receipt_number: null,
        bsb: null,
        remitter_name: null,
        source_bsb: '062-000',
      }),
    ]);
    expect(await bed.database.rows('direct_credit_batches')).toEqual([
      expect.objectContaining({ total_count: null, total_amount: '99', record_count: 1 }),
    ]);
    const [delivery] = await bed.database.query<{ warnings: { path: string }[] }>(
      'SELECT warnings FROM webhook_deliveries',
    );
    expect(delivery?.warnings.map((w) => w.path)).toEqual([
      'DirectCreditDetails[0].BatchId',
      'DirectCreditDetails[0].DateTime',
      'DirectCreditDetails[0].AccountNumber',
      'DirectCreditDetails[0].Indicator',
      'DirectCreditDetails[0].WithholdingTaxAmount',
      'DirectCreditDetails[0].ReceiptNumber',
      'TotalCount',
      'TotalAmount',
    ]);
    expect(delivery?.warnings.at(-1)).toEqual({
      path: 'TotalAmount',
      message: "TotalAmount is 99 but the records' amounts add up to 10.5",
    });
    expect(deliveryLine()).toMatchObject({ level: 40, outcome: 'stored' });
  });

  it('when TotalCount disagrees with the records, then a warning says so', async () => {
    await send({
      TotalCount: 3,
      TotalAmount: '1.00',
      DirectCreditDetails: [{ TransactionId: 'D00100700002', Amount: 1 }],
    }).expect(200);
    const [delivery] = await bed.database.query('SELECT warnings FROM webhook_deliveries');
    expect(delivery).toEqual({
      warnings: [
        { path: 'TotalCount', message: 'TotalCount is 3 but DirectCreditDetails holds 1 records' },
      ],
    });
  });

  it.each([
    ['an array of records', `[{"TransactionId":"D1","Amount":1}]`, ['']],
    ['no DirectCreditDetails', `{"TotalCount":1,"TotalAmount":1}`, ['DirectCreditDetails']],
    [
      'a record without TransactionId',
      `{"DirectCreditDetails":[{"TransactionId":"D2","Amount":1},{"Amount":2}]}`,
      ['DirectCreditDetails[1].TransactionId'],
    ],
    [
      'a record whose Amount is not a number',
      `{"DirectCreditDetails":[{"TransactionId":"D3","Amount":"ten"}]}`,
      ['DirectCreditDetails[0].Amount'],
    ],
    [
      'a record that is not an object',
      `{"DirectCreditDetails":["D4"]}`,
      ['DirectCreditDetails[0]'],
    ],
  ])('when the body is %s, then 400, quarantined, nothing typed', async (_name, body, paths) => {
    const answer = await send(body).expect(400);
    expect((answer.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(
      paths,
    );
    expect(await bed.database.count('quarantined_deliveries')).toBe(1);
    expect(await bed.database.count('webhook_deliveries')).toBe(0);
    expect(await bed.database.count('direct_credits')).toBe(0);
    expect(await bed.database.count('direct_credit_batches')).toBe(0);
  });
});

describe('payments received', () => {
  /** Sydney's wall-clock time now, `yyyy-MM-ddTHH:mm:ss`. */
  const sydneyNow = () =>
    new Intl.DateTimeFormat('sv-SE', {
      timeZone: 'Australia/Sydney',
      dateStyle: 'short',
      timeStyle: 'medium',
    })
      .format(new Date())
      .replace(' ', 'T');

  it("when a direct credit and an NPP payment arrive today, then the README's 'payments received today' query lists both", async () => {
    const now = sydneyNow();
    const npp = nppPayment({ DateTime: now, Amount: '7.25' });
    await send(npp, freshWebhookId(), 'NPPReceivePayment').expect(200);
    const webhookId = freshWebhookId();
    await send(
      {
        TotalCount: 1,
        TotalAmount: 980.1,
        DirectCreditDetails: [
          {
            TransactionId: 'D00100800001',
            DateTime: now,
            Amount: 980.1,
            RemitterName: 'JOHN PAYER',
            LodgementRef: 'INV-42',
            Bsb: '802-985',
            AccountNumber: 419001918,
            AccountName: 'ACME RECEIVABLES',
            SourceBsb: '062-000',
            SourceAccountNumber: '87654321',
            ReceiptNumber: '77',
          },
        ],
      },
      webhookId,
    ).expect(200);

    const today = await bed.database.query(`
      SELECT event_name, transaction_id, amount, remitter_name, remittance_information, date_time_local
      FROM payments_received
      WHERE date_time_local >= date_trunc('day', now() AT TIME ZONE 'Australia/Sydney')
        AND date_time_local <  date_trunc('day', now() AT TIME ZONE 'Australia/Sydney') + interval '1 day'
      ORDER BY event_name`);
    expect(today).toEqual([
      {
        event_name: 'InboundDirectCredit',
        transaction_id: 'D00100800001',
        amount: '980.1',
        remitter_name: 'JOHN PAYER',
        remittance_information: 'INV-42',
        date_time_local: now.replace('T', ' '),
      },
      expect.objectContaining({ event_name: 'NPPReceivePayment', amount: '7.25' }),
    ]);
    const [row] = await bed.database.query(
      `SELECT *, date_time = (date_time_local AT TIME ZONE 'Australia/Sydney') AS instant_matches
       FROM payments_received WHERE event_name = 'InboundDirectCredit'`,
    );
    expect(row).toEqual({
      event_name: 'InboundDirectCredit',
      transaction_id: 'D00100800001',
      webhook_id: webhookId,
      amount: '980.1',
      date_time_local: now.replace('T', ' '),
      date_time_text: now,
      remitter_name: 'JOHN PAYER',
      source_bsb: '062-000',
      source_account_number: '87654321',
      source_account_name: null,
      bsb: '802-985',
      account_number: '419001918',
      account_name: 'ACME RECEIVABLES',
      pay_id: null,
      pay_id_name: null,
      end_to_end_id: null,
      remittance_information: 'INV-42',
      receipt_number: '77',
      received_at: expect.any(Date),
      date_time: expect.any(Date),
      instant_matches: true,
    });
  });
});
