import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findEventModel } from '../../src/events/registry.ts';
import type { Db } from '../../src/storage/database.ts';
import { keyFingerprint } from '../../src/verification/public-key.ts';
import { decodeSignature, verifySignature } from '../../src/verification/signature.ts';
import { bodyField } from '../../src/common/capture-body.ts';
import { captureHeaders } from '../../src/common/capture-headers.ts';
import { serialiseCapturedDelivery } from '../../src/common/captured-delivery.ts';
import { targetRows } from './export-target-rows.ts';
import { providerHex } from '../../src/common/platform-key.ts';

export interface ExportQuarantineOptions {
  outDir: string;
  /** Only rows received at or after this time. */
  since?: Date;
  /** Only this row (quarantined_deliveries.id). */
  id?: string;
  /** The platform key that verified the deliveries; recorded as each file's publicKey. */
  publicKey: KeyObject;
}

export interface ExportQuarantineResult {
  written: { id: string; file: string }[];
  /** `key`: not verified by the key given, so not written; `exists`: already exported. */
  skipped: { id: string; kind: 'key' | 'exists'; reason: string }[];
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
  let query = db.selectFrom('quarantined_deliveries').selectAll().orderBy('id');
  if (options.since) query = query.where('received_at', '>=', options.since);
  if (options.id !== undefined) query = query.where('id', '=', options.id);
  const rows = await query.execute();

  const result: ExportQuarantineResult = { written: [], skipped: [] };
  const publicKey = providerHex(options.publicKey);
  await mkdir(options.outDir, { recursive: true });
  for (const row of rows) {
    const headers = captureHeaders(row.headers);
    const signature = decodeSignature(headers['verification-signature']);
    if (!signature || !verifySignature(row.raw_body, signature, options.publicKey)) {
      const signedBy = row.signing_key_fingerprint?.slice(0, 16) ?? 'unknown';
      result.skipped.push({
        id: row.id,
        kind: 'key',
        reason: `the key given (${keyFingerprint(options.publicKey).slice(0, 16)}…) does not verify it; it was verified by ${signedBy}…`,
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
      publicKey,
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
