import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  CapturedDeliveryError,
  parseCapturedDelivery,
  type CapturedDelivery,
} from '../../src/capture/index.ts';

export type LoadedCapture =
  | { file: string; ok: true; delivery: CapturedDelivery }
  | { file: string; ok: false; problems: readonly string[] };

/** The `*.json` files a path names: itself if it is a file, else the folder's, sorted by name. */
export function captureFilesAt(target: string): string[] {
  if (!statSync(target).isDirectory()) return [target];
  return readdirSync(target)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => path.join(target, name));
}

/** Reads and checks one file; a bad file is reported, never thrown. */
export function loadCaptureFile(file: string): LoadedCapture {
  try {
    return { file, ok: true, delivery: parseCapturedDelivery(readFileSync(file, 'utf8')) };
  } catch (error) {
    if (error instanceof CapturedDeliveryError)
      return { file, ok: false, problems: error.problems };
    return { file, ok: false, problems: [(error as Error).message] };
  }
}
