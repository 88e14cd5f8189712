import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../lib/logger.ts';
import { type Capture, type SigningKeySource } from '../receiver/index.ts';
import { decodeSignature, verifySignature } from '../receiver/signature.ts';
import { bodyField } from './capture-body.ts';
import { captureHeaders } from './capture-headers.ts';
import { serialiseCapturedDelivery } from './captured-delivery.ts';
import { cleanReplayExpectation } from './clean-replay-expectation.ts';
import { providerHex } from '../lib/platform-key.ts';

export interface CaptureWriterOptions {
  dir: string;
  logger: Logger;
  /** The key in hand is recorded as the file's publicKey (it verified the delivery). */
  keys: Pick<SigningKeySource, 'current'>;
  now?: () => Date;
}

const CAPTURED_OUTCOMES = ['stored', 'duplicate', 'quarantined'] as const;
type CapturedOutcome = (typeof CAPTURED_OUTCOMES)[number];

/**
 * Writes each authenticated delivery (stored, duplicate, quarantined) to `dir` as a captured
 * delivery file; anything else is ignored. Never throws: a capture is a diagnostic aid, and a
 * failure to write one is logged, not allowed to touch the delivery's answer.
 */
export function createCaptureWriter(
  options: CaptureWriterOptions,
): (capture: Capture) => Promise<void> {
  const now = options.now ?? (() => new Date());
  return async (capture) => {
    if (!(CAPTURED_OUTCOMES as readonly string[]).includes(capture.outcome)) return;
    try {
      const file = await writeCapture(options, capture, capture.outcome as CapturedOutcome, now());
      options.logger.debug({ file }, 'delivery captured');
    } catch (error) {
      options.logger.warn(
        { err: error, event: capture.eventName, dir: options.dir },
        'delivery capture not written',
      );
    }
  };
}

async function writeCapture(
  options: CaptureWriterOptions,
  capture: Capture,
  outcome: CapturedOutcome,
  at: Date,
): Promise<string> {
  const headers = captureHeaders(capture.headers);
  const key = options.keys.current();
  const signature = decodeSignature(headers['verification-signature']);
  // A file must replay as it was answered: record only a key that verifies these bytes.
  if (!key || !signature || !verifySignature(capture.rawBody, signature, key.key)) {
    throw new Error('the signing key in hand does not verify this delivery (rotated since?)');
  }
  const expected = cleanReplayExpectation({
    eventName: capture.eventName,
    rawBody: capture.rawBody,
    headers,
    outcome,
    ...(capture.errorPaths && { errorPaths: capture.errorPaths }),
  });
  const live = `${capture.httpStatus} ${outcome}`;
  const clean = `${expected.status} ${expected.outcome}`;
  const text = serialiseCapturedDelivery({
    formatVersion: 1,
    description: `${capture.eventName} captured by the receiver, answered ${live}${live === clean ? '' : `; replayed alone it is ${clean}`}`,
    source: 'capture',
    capturedAt: at.toISOString(),
    eventName: capture.eventName,
    headers,
    ...bodyField(capture.rawBody),
    publicKey: providerHex(key.key),
    expected,
  });
  await mkdir(options.dir, { recursive: true });
  return writeExclusively(
    options.dir,
    fileStem(at, capture.eventName, headers, capture.rawBody),
    text,
  );
}

/** `<time>-<event>-<webhookid or sha>`: sorts by time; the time has no ':' so any OS takes it. */
function fileStem(at: Date, eventName: string, headers: Record<string, string>, body: Buffer) {
  const time = at.toISOString().replaceAll(':', '-');
  const webhookId = headers.webhookid?.trim();
  const id =
    webhookId && /^\d{1,19}$/.test(webhookId)
      ? webhookId
      : `sha-${createHash('sha256').update(body).digest('hex').slice(0, 12)}`;
  return `${time}-${eventName}-${id}`;
}

/**
 * Written under a temporary name, then linked into place: a reader never sees half a file, and
 * link (unlike rename) refuses to replace a file already there, so two captures never collide.
 */
async function writeExclusively(dir: string, stem: string, text: string): Promise<string> {
  const temporary = path.join(dir, `.${stem}.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(temporary, text, { mode: 0o600 });
  try {
    for (let attempt = 1; ; attempt += 1) {
      const file = path.join(dir, `${stem}${attempt === 1 ? '' : `-${attempt}`}.json`);
      try {
        await link(temporary, file);
        return file;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 100) throw error;
      }
    }
  } finally {
    await unlink(temporary).catch(() => {});
  }
}
