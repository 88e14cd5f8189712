/**
 * Looks for secrets and any signature the sender made in text that leaves the receivers (logs,
 * response bodies, command output). A signature is found whole or by its first characters, so
 * a truncated one in a log still counts.
 */
export interface LeakDetector {
  /** Another secret to look for, named in what `scan` reports (never the value itself). */
  addSecret(name: string, value: string): void;
  addSignature(signature: string): void;
  /** Returns what leaked in `text`, described without repeating any secret. */
  scan(text: string): string[];
}

const PREFIX = 24;
const BASE64_RUN = /[A-Za-z0-9+/]{24,}={0,2}/g;

/** `sharedSecret` is `Basic <credentials>`: the credentials alone are the secret too. */
export function createLeakDetector(sharedSecret: string): LeakDetector {
  const prefixes = new Set<string>();
  const secrets: { name: string; value: string }[] = [];
  const addSecret = (name: string, value: string) => {
    if (value.length >= 8) secrets.push({ name, value });
  };
  addSecret('the shared secret', sharedSecret);
  addSecret('the shared secret', sharedSecret.replace(/^\S+\s+/, ''));
  return {
    addSecret,
    addSignature: (signature) => {
      prefixes.add(signature.replace(/\s/g, '').slice(0, PREFIX));
    },
    scan: (text) => {
      const found = new Set(secrets.filter(({ value }) => text.includes(value)).map((s) => s.name));
      let signatures = 0;
      for (const match of text.matchAll(BASE64_RUN)) {
        if (prefixes.has(match[0].slice(0, PREFIX))) signatures += 1;
      }
      if (signatures > 0) found.add(`${signatures} signature value(s)`);
      return [...found];
    },
  };
}
