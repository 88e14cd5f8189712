import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describeError } from '../../src/lib/describe-error.ts';
import { keyFingerprint, parsePublicKey } from '../../src/receiver/signature.ts';

/**
 * The keys export-quarantine may record: the one given (`--public-key`, `--key-file`,
 * `SIGNING_KEY`), or else the one each row was verified with, found by the fingerprint the row
 * keeps among the keys on this machine (the sandbox's, which `npm run sandbox -- simulate` signs
 * with too, and the committed fixtures') and, only when none of those is it, the platform's key
 * endpoint. So a laptop exports rows made with the sandbox or the fixtures without any network.
 */

/** Where a key was looked for, and what came of it: for the message when none fits. */
export interface KeyAttempt {
  source: string;
  outcome: string;
  key?: KeyObject;
}

export interface LocalKeyFile {
  /** As shown to the operator (relative to the project). */
  label: string;
  file: string;
  kind: 'private' | 'public';
}

/** The key files the project's own tools make or commit, newest use first. */
export function localKeyFiles(projectDir: string, env: NodeJS.ProcessEnv): LocalKeyFile[] {
  const inProject = (relative: string) => path.resolve(projectDir, relative);
  const shown = (file: string) => path.relative(projectDir, file) || file;
  const sandbox = inProject(env.SANDBOX_KEY_FILE ?? '.data/sandbox-key.pem');
  const fixtures = inProject('test/fixtures/keys/captured-sender.public.pem');
  return [
    {
      label: `${shown(sandbox)} (npm run sandbox, and its simulate)`,
      file: sandbox,
      kind: 'private',
    },
    { label: `${shown(fixtures)} (the committed fixtures)`, file: fixtures, kind: 'public' },
  ];
}

/**
 * The one key in a text that may carry comment lines around it, as key files often do: the PEM
 * block when there is exactly one, else the text without `#` comment lines (hex, JWK). Several
 * blocks are left as they are, so the parser refuses them rather than this picking one.
 */
export function keyText(text: string): string {
  const blocks = [...text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g)];
  if (blocks.length === 1) return (blocks[0] as RegExpMatchArray)[0];
  if (blocks.length > 1) return text;
  return text
    .split(/\r?\n/)
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .trim();
}

/** A key given as hex, PEM or JWK text, or as the name of a file holding one. */
export async function givenKey(value: string): Promise<KeyObject> {
  const text = existsSync(value) ? readFileSync(value, 'utf8') : value;
  return parsePublicKey(keyText(text));
}

/**
 * `--key-file`: a public key file, or a private one whose public half is taken (the sandbox's key
 * file, which its simulate command signs with too, holds its private key).
 */
export async function keyFromFile(file: string): Promise<KeyObject> {
  if (!existsSync(file)) throw new Error(`${file}: no such file`);
  const text = readFileSync(file, 'utf8');
  if (/-----BEGIN (RSA )?PRIVATE KEY-----/.test(text))
    return createPublicKey(createPrivateKey(text));
  return parsePublicKey(keyText(text));
}

export async function readLocalKey(local: LocalKeyFile): Promise<KeyAttempt> {
  if (!existsSync(local.file)) return { source: local.label, outcome: 'absent' };
  try {
    const text = readFileSync(local.file, 'utf8');
    const key =
      local.kind === 'private'
        ? createPublicKey(createPrivateKey(text))
        : await parsePublicKey(keyText(text));
    return { source: local.label, outcome: `key ${short(keyFingerprint(key))}`, key };
  } catch (error) {
    return { source: local.label, outcome: `unreadable: ${describeError(error)}` };
  }
}

/** A key from somewhere (SIGNING_KEY, the key endpoint), or why there is none. */
export async function keyFrom(source: string, load: () => Promise<KeyObject>): Promise<KeyAttempt> {
  try {
    const key = await load();
    return { source, outcome: `key ${short(keyFingerprint(key))}`, key };
  } catch (error) {
    return { source, outcome: describeError(error) };
  }
}

/** Fingerprints (of rows to export) that none of these keys has; null: the row does not say. */
export function unmatched(
  fingerprints: readonly (string | null)[],
  keys: readonly KeyObject[],
): (string | null)[] {
  const have = new Set(keys.map(keyFingerprint));
  return fingerprints.filter((fingerprint) => fingerprint === null || !have.has(fingerprint));
}

export const short = (fingerprint: string) => `${fingerprint.slice(0, 16)}…`;

export const HOW_TO_GIVE_A_KEY = [
  'Give the key that verified them:',
  '  npm run export-quarantine -- --out <folder> --public-key <hex, PEM or file>',
  '  or --key-file <PEM file, public or private> (e.g. .data/sandbox-key.pem),',
  '  or SIGNING_KEY=<hex or PEM> (SIGNING_KEY_FILE=<file>), as the receiver had it,',
  '  or SIGNING_KEY_URL=<the key endpoint that served it> (http: also SIGNING_KEY_ALLOW_HTTP=true).',
].join('\n');
