import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findEventModel } from '../../src/receiver/contract.ts';
import type { Db } from '../../src/lib/database/database.ts';
import { keyFingerprint } from '../../src/receiver/signature.ts';
import { decodeSignature, verifySignature } from '../../src/receiver/signature.ts';
import { bodyField } from '../../src/capture/index.ts';
import { captureHeaders } from '../../src/capture/index.ts';
import { serialiseCapturedDelivery } from '../../src/capture/index.ts';
import { targetRows } from './export-target-rows.ts';
import { providerHex } from '../../src/lib/platform-key.ts';

export interface ExportQuarantineOptions {
  outDir: string;
  /** Only rows received at or after this time. */
  since?: Date;
  /** Only this row (quarantined_deliveries.id). */
  id?: string;
  /**
   * The platform key that verified the deliveries, recorded as each file's publicKey; or several
   * keys, of which each row gets the one it was verified with (its fingerprint, else the one that
   * verifies its signature).
   */
  publicKey: KeyObject | readonly KeyObject[];
}

type Filter = Pick<ExportQuarantineOptions, 'since' | 'id'>;

function selectRows(db: Db, options: Filter) {
  let query = db.selectFrom('quarantined_deliveries').orderBy('id');
  if (options.since) query = query.where('received_at', '>=', options.since);
  if (options.id !== undefined) query = query.where('id', '=', options.id);
  return query;
}

/** The fingerprints of the keys that verified the rows to export (null: the row does not say). */
export async function quarantinedFingerprints(db: Db, options: Filter): Promise<(string | null)[]> {
  const rows = await selectRows(db, options).select('signing_key_fingerprint').execute();
  return [...new Set(rows.map((row) => row.signing_key_fingerprint))];
}

export interface ExportQuarantineResult {
  written: { id: string; file: string }[];
  /**
   * `key`: not verified by the key given, so not written; `exists`: already exported;
   * `unsigned`: no signature kept (its body and headers pruned by retention), nothing to replay.
   */
  skipped: { id: string; kind: 'key' | 'exists' | 'unsigned'; reason: string }[];
}

/**
 * Writes quarantined deliveries as captured-delivery files, so an operator can fix the schema,
 * replay them, and keep them as regression fixtures. Each file's `expected` is the target, not
 * what the receiver does today: 200 stored, with typed rows estimated from the body. The
 * operator reviews it (docs/tools.md). A file already in the folder is left alone, since it may
 * hold that review.
 */
export async function exportQuarantine(
  db: Db,
  options: ExportQuarantineOptions,
): Promise<ExportQuarantineResult> {
  const rows = await selectRows(db, options).selectAll().execute();

  const result: ExportQuarantineResult = { written: [], skipped: [] };
  const keys = (Array.isArray(options.publicKey) ? options.publicKey : [options.publicKey]).map(
    (key: KeyObject) => ({ key, fingerprint: keyFingerprint(key) }),
  );
  await mkdir(options.outDir, { recursive: true });
  for (const row of rows) {
    const headers = captureHeaders(row.headers);
    if (headers['verification-signature'] === undefined) {
      result.skipped.push({
        id: row.id,
        kind: 'unsigned',
        reason:
          'no Verification-Signature kept (body and headers pruned by retention?): nothing a replay could verify',
      });
      continue;
    }
    const signature = decodeSignature(headers['verification-signature']);
    // The key the receiver verified it with first, then any other that verifies it.
    const ordered = [
      ...keys.filter((k) => k.fingerprint === row.signing_key_fingerprint),
      ...keys.filter((k) => k.fingerprint !== row.signing_key_fingerprint),
    ];
    const verifying = signature
      ? ordered.find((k) => verifySignature(row.raw_body, signature, k.key))
      : undefined;
    if (!verifying) {
      const signedBy = row.signing_key_fingerprint?.slice(0, 16) ?? 'unknown';
      const tried = !Array.isArray(options.publicKey)
        ? `the key given (${keys[0]?.fingerprint.slice(0, 16)}…) does not verify it`
        : keys.length === 0
          ? 'no key at hand'
          : `none of the keys at hand (${keys.map((k) => `${k.fingerprint.slice(0, 16)}…`).join(', ')}) verifies it`;
      result.skipped.push({
        id: row.id,
        kind: 'key',
        reason: `${tried}; it was verified by ${signedBy}…`,
      });
      continue;
    }
    const file = path.join(options.outDir, `quarantine.${kebab(row.event_name)}.${row.id}.json`);
    if (existsSync(file)) {
      result.skipped.push({
        id: row.id,
        kind: 'exists',
        reason: `${path.basename(file)} already exists`,
      });
      continue;
    }
    const reasons = row.reasons.map((r) => (r.path ? `${r.path}: ${r.message}` : r.message));
    const text = serialiseCapturedDelivery({
      formatVersion: 1,
      description: `Quarantined delivery ${row.id} (${row.event_name}), refused: ${reasons.join('; ')}. expected is the target after a fix (200 stored): review it`,
      source: 'quarantine',
      capturedAt: row.received_at.toISOString(),
      eventName: row.event_name,
      headers,
      ...bodyField(row.raw_body),
      publicKey: providerHex(verifying.key),
      expected: {
        status: 200,
        outcome: 'stored',
        modelled: findEventModel(row.event_name) !== undefined,
        rows: targetRows(row.event_name, row.raw_body),
      },
    });
    await writeFile(`${file}.tmp`, text, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
    result.written.push({ id: row.id, file });
  }
  return result;
}

/** NPPReceivePayment → npp-receive-payment, as the fixtures are named. */
function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}
