-- A receiver database that has been running for four weeks: about 2 million NPPReceivePayment
-- deliveries, each as the receiver stores one (the raw request in webhook_deliveries, its typed
-- row in npp_payments, its numbered feed event), for the "large database" figures of
-- docs/benchmark.md. Into an empty database migrated by `npm run migrate`:
--
--   createdb -h 127.0.0.1 -U postgres bench_2m
--   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_2m npm run migrate
--   psql postgres://postgres@127.0.0.1:5432/bench_2m -f tools/bench/seed-2m.sql
--   # fewer: psql ... -v deliveries=200000 -f tools/bench/seed-2m.sql
--
-- Every unique key is new: Webhookids and TransactionIds are numbered from delivery number 10^9
-- (the benchmark's own deliveries count from 0), and each body differs, so its SHA-256 does too.
-- The bodies have the shape of tools/common/payment-body.ts's (the platform's field names,
-- 569-589 bytes with these numbers); the typed row holds the body's values. received_at spreads the deliveries over
-- the 28 days before the seeding, oldest first: inside every retention window, so the scheduled
-- prune has nothing to do. The feed events are numbered (position = id, gapless) and pending, as
-- a receiver without a feed relay leaves them. 200,000 deliveries per transaction, progress as
-- NOTICEs; then VACUUM (ANALYZE) and a CHECKPOINT. About 2.5 kB per delivery: some 5 GB for 2
-- million.

\set ON_ERROR_STOP on
\if :{?deliveries}
\else
  \set deliveries 2000000
\endif
SELECT set_config('seed.deliveries', :'deliveries', false) AS deliveries;

DO $$
DECLARE
  total constant bigint := current_setting('seed.deliveries')::bigint;
  chunk constant bigint := 200000;
  -- Delivery numbers start here; Webhookid = 10^15 + number, as the benchmark's.
  first_number constant bigint := 1000000000;
  newest constant timestamptz := date_trunc('second', clock_timestamp());
  started constant timestamptz := clock_timestamp();
  done bigint := 0;
BEGIN
  IF EXISTS (SELECT 1 FROM webhook_deliveries) OR EXISTS (SELECT 1 FROM feed_events) THEN
    RAISE EXCEPTION 'seed-2m.sql fills an empty database: this one already holds deliveries';
  END IF;
  WHILE done < total LOOP
    WITH numbers AS (
      SELECT g, first_number + g AS n,
             ('x' || left(md5(g::text), 8))::bit(32)::bigint AS mix
        FROM generate_series(done, least(done + chunk, total) - 1) AS g
    ),
    fields AS (
      SELECT g, n, mix,
             1000000000000000 + n AS webhook_id,
             'N' || (10000000000 + n) AS transaction_id,
             (ARRAY['JANE CITIZEN', 'DUNCAN CITIZEN', 'MARIA NGUYEN', 'OLIVER SMITH PTY LTD'])[mix % 4 + 1] AS remitter,
             trim_scale((100 + mix % 2500000) / 100.0) AS amount,
             format('2026-03-%sT%s:%s:%s.%s',
                    lpad((1 + mix % 28)::text, 2, '0'),
                    lpad((mix % 86400 / 3600)::text, 2, '0'),
                    lpad((mix % 86400 / 60 % 60)::text, 2, '0'),
                    lpad((mix % 60)::text, 2, '0'),
                    lpad((mix % 10000000)::text, 7, '0')) AS date_time_text,
             (ARRAY['INV-', 'Order ', 'Rent ', 'Sub '])[mix % 4 + 1] || (10000 + n % 90000) AS description,
             (10000000 + mix % 89999999)::text AS source_account_number,
             'E2E-202603' || lpad((1 + mix % 28)::text, 2, '0') || '-' || n AS end_to_end_id,
             newest - interval '28 days' * (1 - g::float8 / total) AS received_at
        FROM numbers
    ),
    bodies AS (
      SELECT f.*, convert_to(format(
               '{"TransactionId":"%s","DateTime":"%s","RemitterName":"%s","Amount":%s,'
               '"AccountName":"Acme Receivables","AccountNumber":"419001918","Bsb":"802-985",'
               '"PaymentDescription":"%s","PayId":"pay@acme.com.au","PayIdName":"ACME PTY LTD",'
               '"SourceBsb":"062-000","SourceAccountNumber":"%s","SourceAccountName":"%s",'
               '"EndToEndId":"%s","CategoryPurposeCode":null,"CreditorReferenceInformation":null,'
               '"USINumber":null,"USICreditorScheme":null,"UltimateCreditorName":null,'
               '"ReceiptNumber":%s}',
               transaction_id, date_time_text, remitter, amount, description,
               source_account_number, remitter, end_to_end_id, 5000000 + n), 'UTF8') AS raw_body
        FROM fields AS f
    ),
    deliveries AS (
      INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
                                      raw_body, content_type, headers, request_id, remote_address,
                                      signing_key_fingerprint)
      SELECT webhook_id, 'NPPReceivePayment', true, received_at, encode(sha256(raw_body), 'hex'),
             raw_body, 'application/json',
             jsonb_build_object(
               'host', '127.0.0.1:3000', 'accept', '*/*', 'connection', 'keep-alive',
               'user-agent', 'node', 'content-type', 'application/json',
               'content-length', octet_length(raw_body)::text, 'webhookid', webhook_id::text,
               -- 256 bytes in base64, the size of an RSA-2048 signature.
               'verification-signature',
               replace(encode(decode(repeat(md5(g::text), 16), 'hex'), 'base64'), E'\n', '')),
             gen_random_uuid()::text, '127.0.0.1',
             encode(sha256('seed-2m.sql signing key'::bytea), 'hex')
        FROM bodies
    ),
    payments AS (
      INSERT INTO npp_payments (transaction_id, webhook_id, end_to_end_id, amount, date_time_local,
                                date_time_text, receipt_number, pay_id, remitter_name, bsb,
                                account_number, remittance_information, received_at, account_name,
                                pay_id_name, source_bsb, source_account_number,
                                source_account_name)
      SELECT transaction_id, webhook_id, end_to_end_id, amount, date_time_text::timestamp,
             date_time_text, (5000000 + n)::text, 'pay@acme.com.au', remitter, '802-985',
             '419001918', description, received_at, 'Acme Receivables', 'ACME PTY LTD',
             '062-000', source_account_number, remitter
        FROM fields
    )
    INSERT INTO feed_events (id, position, type, event_name, business_key, webhook_id, created_at)
      OVERRIDING SYSTEM VALUE
    SELECT g + 1, g + 1, 'payment.received', 'NPPReceivePayment', transaction_id, webhook_id,
           received_at
      FROM fields;
    COMMIT;
    done := least(done + chunk, total);
    RAISE NOTICE '% of % deliveries, % s', done, total,
      round(extract(epoch FROM clock_timestamp() - started));
  END LOOP;
  -- The next event the receiver records continues the numbering.
  PERFORM setval(pg_get_serial_sequence('feed_events', 'id'), greatest(total, 1), total > 0);
END $$;

VACUUM (ANALYZE) webhook_deliveries, npp_payments, feed_events;
CHECKPOINT;
SELECT (SELECT count(*) FROM webhook_deliveries) AS deliveries,
       (SELECT count(*) FROM npp_payments) AS payments,
       (SELECT count(*) FROM feed_events) AS feed_events,
       pg_size_pretty(pg_database_size(current_database())) AS database_size;
