-- Least-privilege roles for the Monoova webhook receiver (docs/operations.md, "Roles").
--
--   <prefix>_owner        owns the schema and every object in it; the migration job
--                         (npm run migrate:prod) logs in as this role, nothing else does.
--   <prefix>_receiver     the service at runtime (DATABASE_URL of every instance), and the
--                         operator commands (npm run quarantine, feed, provider, recover, prune):
--                         SELECT/INSERT/UPDATE exactly where the code writes (UPDATE on listed
--                         columns where it sets only those), DELETE only where rows are claims
--                         or retention removes them; refunds and feed events are deleted only
--                         through functions that check the code's conditions; no DDL, no
--                         TRUNCATE.
--   <prefix>_feed_reader  a merchant's SQL consumer of the feed: SELECT on the `feed` view, and
--                         nothing else (LISTEN feed_positions needs no privilege; its NOTIFY
--                         payloads are signed with a key it cannot read, so a NOTIFY of its own
--                         wakes nobody, and it cannot lock a row of named_locks).
--
-- <prefix> is `monoova` unless the setting monoova.role_prefix says otherwise.
--
-- Plain SQL, idempotent: run it again whenever you like, and always after a migration job (it
-- grants on the tables that job created, and takes back what default privileges gave too much).
-- Run it in the receiver's database:
--
--   first time, as a superuser or the database's owner with CREATEROLE (creates the roles,
--   locks the database and schema down, hands every existing object to the owner role):
--     psql "$ADMIN_URL" -v ON_ERROR_STOP=1 -f deploy/sql/roles.sql
--   after every migration job, as the owner role itself (it owns the tables, so it may grant):
--     psql "$OWNER_URL" -v ON_ERROR_STOP=1 -f deploy/sql/roles.sql
--
-- Optional settings, read when present (SET them before the file, or PGOPTIONS='-c name=value'):
--   monoova.role_prefix                   role names' prefix (default monoova)
--   monoova.owner_password, monoova.receiver_password, monoova.feed_reader_password
--       set that role's password on this run. Prefer psql's \password <role> (the password is
--       hashed on the client and never appears in a statement or a server log), or your cloud
--       provider's IAM authentication; a role created without one cannot log in by password.
--
-- Whoever runs it must be able to do what each section does; a section it has nothing to do
-- in is skipped: roles that exist are left alone, the database and schema are changed only by
-- a superuser or the database's owner, objects already owned by the owner role are not touched.

BEGIN;

DO $roles$
DECLARE
  prefix constant text := coalesce(nullif(current_setting('monoova.role_prefix', true), ''), 'monoova');
  owner_role constant text := prefix || '_owner';
  receiver_role constant text := prefix || '_receiver';
  reader_role constant text := prefix || '_feed_reader';
  password text;
  is_superuser constant boolean := (SELECT rolsuper FROM pg_roles WHERE rolname = current_user);
  owns_database constant boolean := pg_has_role(current_user,
    (SELECT datdba FROM pg_database WHERE datname = current_database()), 'MEMBER');
  object record;
  relation record;
  routine record;
  updatable text;
BEGIN
  ------------------------------------------------------------------------------------------
  -- 1. The roles. Created once, with no superuser, database-creating, role-creating,
  --    replication or RLS-bypassing attribute. A role that exists is never altered here
  --    (an operator may have tuned it), except for a password asked for by setting.
  ------------------------------------------------------------------------------------------
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = owner_role) THEN
    EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', owner_role);
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = receiver_role) THEN
    EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', receiver_role);
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = reader_role) THEN
    -- A merchant's consumer cannot take the connections the receivers need (see the connection
    -- budget), and its sessions are read-only even if a grant were ever given by mistake.
    EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 5', reader_role);
    EXECUTE format('ALTER ROLE %I SET default_transaction_read_only = on', reader_role);
  END IF;
  FOR object IN
    SELECT * FROM (VALUES (owner_role, 'monoova.owner_password'),
                          (receiver_role, 'monoova.receiver_password'),
                          (reader_role, 'monoova.feed_reader_password')) AS p(role, setting)
  LOOP
    password := nullif(current_setting(object.setting, true), '');
    IF password IS NOT NULL THEN
      EXECUTE format('ALTER ROLE %I PASSWORD %L', object.role, password);
    END IF;
  END LOOP;

  -- A non-superuser administrator (a managed database's admin user) must be able to act as the
  -- owner role to give it the schema and objects, and to set its default privileges.
  IF NOT is_superuser AND owns_database AND NOT pg_has_role(current_user, owner_role, 'MEMBER') THEN
    EXECUTE format('GRANT %I TO CURRENT_USER', owner_role);
  END IF;

  ------------------------------------------------------------------------------------------
  -- 2. The database: only these three roles connect (superusers always can). Other clients
  --    (a monitoring user, a backup user) need their own GRANT CONNECT after this.
  ------------------------------------------------------------------------------------------
  IF is_superuser OR owns_database THEN
    -- PUBLIC has CONNECT and TEMPORARY on every new database by default: take both back.
    EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
    -- The owner connects to migrate; TEMPORARY because migrations backfill through pg_temp
    -- functions and temporary tables (2026-11-22T01-00-00, 2026-11-24T03-00-00).
    EXECUTE format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO %I', current_database(), owner_role);
    -- The runtime roles only connect: no temporary objects (the code makes none).
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I, %I', current_database(), receiver_role, reader_role);
  ELSE
    RAISE NOTICE 'database privileges left as they are (run as a superuser or the database''s owner to set them)';
  END IF;

  ------------------------------------------------------------------------------------------
  -- 3. The schema (public, where the migrations create everything): the owner role owns it,
  --    so it alone may create, alter and drop there.
  ------------------------------------------------------------------------------------------
  IF (SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = 'public') <> quote_ident(owner_role) THEN
    EXECUTE format('ALTER SCHEMA public OWNER TO %I', owner_role);
  END IF;
  -- Nobody else creates objects there (the default since Postgres 15; a database upgraded from
  -- an older version may still let PUBLIC create).
  REVOKE CREATE ON SCHEMA public FROM PUBLIC;
  -- The runtime roles may look names up in the schema; what they may do with each object is
  -- granted per object below.
  EXECUTE format('GRANT USAGE ON SCHEMA public TO %I, %I', receiver_role, reader_role);

  ------------------------------------------------------------------------------------------
  -- 4. Objects made before the owner role existed (by the old all-powerful user, MIGRATE_ON_START
  --    under it): handed to the owner role, so later migrations (run as the owner) may alter
  --    them. Extension members are left to their extension; sequences owned by a column move
  --    with their table.
  ------------------------------------------------------------------------------------------
  FOR object IN
    SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
             WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END AS kind,
           format('%I.%I', n.nspname, c.relname) AS name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
      AND c.relowner <> to_regrole(quote_ident(owner_role))
      AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                        AND d.objid = c.oid AND d.deptype IN ('e', 'a', 'i'))
    UNION ALL
    SELECT CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
           p.oid::regprocedure::text
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND p.proowner <> to_regrole(quote_ident(owner_role))
      AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                        AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO %I', object.kind, object.name, owner_role);
  END LOOP;

  ------------------------------------------------------------------------------------------
  -- 5. Default privileges: what a table the owner role creates later (the next migration)
  --    gives the receiver before this file is run again and names it below. "The same" as a
  --    written table: read, insert, update; never DELETE or TRUNCATE. A table new to this file
  --    keeps these until it is added to the list (the roles test fails until it is).
  ------------------------------------------------------------------------------------------
  EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA public GRANT SELECT, INSERT, UPDATE ON TABLES TO %I', owner_role, receiver_role);
  -- Identity columns (every migration so far) need no sequence privilege; a serial column's
  -- sequence needs USAGE for the receiver's INSERT to draw from it.
  EXECUTE format('ALTER DEFAULT PRIVILEGES FOR ROLE %I IN SCHEMA public GRANT USAGE ON SEQUENCES TO %I', owner_role, receiver_role);
  -- Functions keep Postgres' default (EXECUTE for PUBLIC): the store statement calls
  -- typed_row_differences(), the quarantine key's index quarantine_header_digest(), both pure.
  -- The feed reader gets nothing by default: a new view for SQL consumers is granted here.

  ------------------------------------------------------------------------------------------
  -- 6. Every table and view the migrations make, with exactly what each role may do. ALL is
  --    revoked first (from PUBLIC too), so a grant given by hand or by default privileges that
  --    is not listed here goes. A relation that does not exist yet is skipped, and so is a
  --    listed column that does not exist yet (run the file again after migrating). UPDATE is
  --    granted on the listed columns only: the ones the code sets, nothing else.
  --    Retention (the scheduled prune every instance runs, RETENTION_INTERVAL_MS, and
  --    `npm run prune`; docs/retention.md) is the only reason for DELETE on records and for
  --    UPDATE on a delivery's raw request; see docs/operations.md to take it from the receiver.
  ------------------------------------------------------------------------------------------
  FOR relation IN
    SELECT * FROM (VALUES
      -- Deliveries: written once by the store statement (INSERT … ON CONFLICT DO NOTHING
      -- RETURNING, hence SELECT), read for deduplication, recovery, the feed. Never deleted.
      -- UPDATE only to prune the raw request (raw_body, headers, payload set to null, pruned_at
      -- set; its batch locks rows FOR UPDATE); the digest, id, event and times cannot change.
      ('webhook_deliveries', 'SELECT, INSERT', '{raw_body,headers,payload,pruned_at}'::text[], ''),
      -- Typed rows: inserted by the store statement, compared (SELECT) to find conflicts, read by
      -- the feed, recovery and refunds. Never updated (a refund serialises on the named_locks
      -- row named after the payment, not a row lock here, so no UPDATE is needed).
      ('npp_payments', 'SELECT, INSERT', '{}', ''),
      ('payto_payments', 'SELECT, INSERT', '{}', ''),
      ('credit_rejections', 'SELECT, INSERT', '{}', ''),
      ('direct_credits', 'SELECT, INSERT', '{}', ''),
      ('direct_credit_batches', 'SELECT, INSERT', '{}', ''),
      -- A key re-sent with other content: inserted by the store statement (and the late-conflict
      -- statement), read by the feed and the prune. Closing one (resolved_at, resolution) is an
      -- operator's decision, made as the owner or a person's own role, not by the service.
      ('conflicts', 'SELECT, INSERT', '{}', ''),
      -- Refused deliveries: inserted by the pipeline; `npm run quarantine` re-drives or resolves
      -- them (handled_*); the prune clears a handled row's body and headers (pruned_at). The
      -- reasons, digest and event stay as received.
      ('quarantined_deliveries', 'SELECT, INSERT', '{handled_at,handling,handled_note,raw_body,headers,pruned_at}', ''),
      -- The feed's outbox: inserted by the store statement; the assigner numbers positions
      -- (position), the relay claims (FOR UPDATE SKIP LOCKED) and records attempts, `npm run
      -- feed -- redrive` resets dead letters, `start-after` marks events sent: UPDATE of the
      -- relay state only. The event itself (type, key, delivery, created_at) never changes. No
      -- DELETE: the prune removes sent events past RETENTION_FEED_DAYS through
      -- prune_sent_feed_events() (functions, below), which checks they were sent.
      ('feed_events', 'SELECT, INSERT',
        '{position,relay_state,attempts,first_attempt_at,next_attempt_at,claimed_by,claimed_until,'
        'last_error,sent_at,dead_at}', ''),
      -- One row, made by its migration: the relays read it, `npm run feed -- pause|resume` sets it.
      -- Since 2026-11-29T01 only the relays of a release before it read it (paused there).
      ('feed_relay_control', 'SELECT', '{paused,reason,changed_at}', ''),
      -- Endpoints (2026-11-29T01): `npm run feed -- endpoints add|update|disable|remove`,
      -- `rotate-secret`, `pause|resume`, `start-after` and the fan-out's cursor write them; the
      -- relays read them. Their name, kind and who declared them never change; DELETE is
      -- `endpoints remove` (its delivery state and attempts go with it, ON DELETE CASCADE,
      -- which runs with the owner's rights). Secrets and a broker's credentials are here: the
      -- feed reader gets nothing on this table or the two below.
      ('feed_endpoints', 'SELECT, INSERT, DELETE',
        '{target,options,types,secrets,credentials,rate_per_second,timeout_ms,concurrency,'
        'max_age_ms,enabled,paused,paused_reason,fanned_through,updated_at}', ''),
      -- An endpoint's delivery state per event: inserted by the fan-out, claimed and marked by
      -- its relay, reset by redrive and replay, marked by start-after. The event it names never
      -- changes. No DELETE: the prune removes an event's rows with it, through
      -- prune_sent_feed_events() (functions, below), which checks every endpoint has it.
      ('feed_endpoint_events', 'SELECT, INSERT',
        '{state,attempts,first_attempt_at,next_attempt_at,claimed_by,claimed_until,last_error,'
        'sent_at,dead_at,replays}', ''),
      -- The attempt log: inserted with each attempt's outcome, read by `feed show|attempts`;
      -- never updated; DELETE by the prune, past RETENTION_FEED_ATTEMPTS_DAYS.
      ('feed_attempts', 'SELECT, INSERT, DELETE', '{}', ''),
      -- Recovery's record: each resend asked for (inserted, then its answer), each run (inserted
      -- when it starts, completed when it ends), unreadable report rows (upserted: counted when
      -- seen again); DELETE by the prune, past RETENTION_RECOVERY_DAYS.
      ('recovery_attempts', 'SELECT, INSERT, UPDATE, DELETE', '{}', ''),
      ('recovery_runs', 'SELECT, INSERT, UPDATE, DELETE', '{}', ''),
      ('recovery_row_problems', 'SELECT, INSERT, UPDATE, DELETE', '{}', ''),
      -- PayTo receipts no webhook brought: upserted by reconciliation (seen again: last_seen_at,
      -- report_row, reopened), resolved (resolved_at). Never deleted.
      ('payto_unmatched_receipts', 'SELECT, INSERT', '{last_seen_at,report_row,resolved_at}', ''),
      -- Claims, not records, so DELETE: the recovery and retention leases are taken (upsert),
      -- renewed and released (deleted); a day's reading position is upserted and deleted once
      -- the day's report has been read to its end (or by the prune).
      ('leases', 'SELECT, INSERT, UPDATE, DELETE', '{}', ''),
      -- The same table under its name before 2026-11-29T00: a view for instances still running
      -- the code from before that migration during a rolling upgrade.
      ('recovery_leases', 'SELECT, INSERT, UPDATE, DELETE', '{}', ''),
      ('recovery_progress', 'SELECT, INSERT, UPDATE, DELETE', '{}', ''),
      -- Refunds: reserved (INSERT) before the call, the outcome recorded (UPDATE of the outcome's
      -- columns only, and the row locked FOR UPDATE by a resumed run). The amount, payment,
      -- references and request time never change. No DELETE: a reservation whose request never
      -- left the process goes through drop_unsent_refund() (functions, below), which deletes
      -- only a `pending` refund never attempted. (An operator's resolution of a refund in doubt
      -- runs as the owner or a person's own role, not the service: its columns are not here.)
      ('refunds', 'SELECT, INSERT',
        '{state,completed_at,attempts,refund_transaction_id,fee_amount_excluding_gst,'
        'fee_amount_including_gst,fee_amount_gst_component,http_status,provider_status,'
        'status_description,dialect}', ''),
      -- Locks only the service may hold (src/lib/database/named-locks.ts): the feed assigner,
      -- a refund's sender, a payment being refunded. A lock is the row locked FOR UPDATE, which
      -- needs UPDATE on one column (created_at; the code never sets it); a new name is inserted.
      -- The feed reader gets nothing, so it cannot take one (advisory locks, used before, need
      -- no privilege at all).
      ('named_locks', 'SELECT, INSERT', '{created_at}', ''),
      -- The key that signs `feed_positions` notifications: read by the service only, so no
      -- other role can write a payload the service trusts. Never written after its migration.
      ('feed_notification_key', 'SELECT', '{}', ''),
      -- Kysely's bookkeeping: the receiver with MIGRATE_ON_START=false reads which migrations
      -- are applied and exits 2 if one it knows is missing; `npm run feed` and `quarantine` run
      -- the migrator, which with nothing pending only reads both. Only the owner writes them.
      ('kysely_migration', 'SELECT', '{}', ''),
      ('kysely_migration_lock', 'SELECT', '{}', ''),
      -- Views for people and SQL consumers. The service reads the tables, not these; nobody but
      -- the owner may write through open_conflicts (a simple view is updatable).
      ('payments_received', '', '{}', ''),
      ('open_conflicts', '', '{}', ''),
      -- The feed for SQL consumers: the view reads feed_events, webhook_deliveries and the typed
      -- tables with its owner's rights, so the reader needs SELECT on the view alone, and sees
      -- only what it shows (raw_body, headers, quarantine, refunds stay out of reach).
      ('feed', '', '{}', 'SELECT')
    ) AS r(name, receiver_privileges, receiver_update_columns, reader_privileges)
  LOOP
    CONTINUE WHEN to_regclass(format('public.%I', relation.name)) IS NULL;
    EXECUTE format('REVOKE ALL ON TABLE public.%I FROM PUBLIC, %I, %I', relation.name, receiver_role, reader_role);
    IF relation.receiver_privileges <> '' THEN
      EXECUTE format('GRANT %s ON TABLE public.%I TO %I', relation.receiver_privileges, relation.name, receiver_role);
    END IF;
    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO updatable
    FROM pg_attribute a
    WHERE a.attrelid = to_regclass(format('public.%I', relation.name))
      AND a.attname = ANY (relation.receiver_update_columns) AND a.attnum > 0 AND NOT a.attisdropped;
    IF updatable IS NOT NULL THEN
      EXECUTE format('GRANT UPDATE (%s) ON TABLE public.%I TO %I', updatable, relation.name, receiver_role);
    END IF;
    IF relation.reader_privileges <> '' THEN
      EXECUTE format('GRANT %s ON TABLE public.%I TO %I', relation.reader_privileges, relation.name, reader_role);
    END IF;
  END LOOP;

  ------------------------------------------------------------------------------------------
  -- 7. Functions that delete on the receiver's behalf (SECURITY DEFINER: they run with the
  --    owner's rights, and check in the deleting statement what the code checks). EXECUTE for
  --    the receiver only; every other function keeps Postgres' default (see 5).
  ------------------------------------------------------------------------------------------
  FOR routine IN
    SELECT to_regprocedure('public.' || r.signature) AS oid FROM (VALUES
      -- A refund reservation whose request never left the process: `pending`, 0 attempts.
      ('drop_unsent_refund(text)'),
      -- The retention's batch of feed events: sent to every endpoint, before the cutoff and a
      -- day ago, a prefix; their delivery state goes with them.
      ('prune_sent_feed_events(bigint, timestamptz, integer)')
    ) AS r(signature)
  LOOP
    CONTINUE WHEN routine.oid IS NULL;
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC, %I, %I', routine.oid::regprocedure, receiver_role, reader_role);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', routine.oid::regprocedure, receiver_role);
  END LOOP;
END
$roles$;

COMMIT;
