/**
 * Looks for the shared secret and any signature the sender made in text that leaves the
 * receivers (logs, response bodies). A signature is found whole or by its first characters, so
 * a truncated one in a log still counts.
 */
export interface LeakDetector {
  addSignature(signature: string): void;
  /** Returns what leaked in `text`, described without repeating the secret itself. */
  scan(text: string): string[];
}

const PREFIX = 24;
const BASE64_RUN = /[A-Za-z0-9+/]{24,}={0,2}/g;

export function createLeakDetector(secret: string): LeakDetector {
  const prefixes = new Set<string>();
  // `Basic <credentials>`: the credentials alone are the secret too.
  const secretForms = [secret, secret.replace(/^\S+\s+/, '')].filter((form) => form.length >= 8);
  return {
    addSignature: (signature) => {
      prefixes.add(signature.replace(/\s/g, '').slice(0, PREFIX));
    },
    scan: (text) => {
      const found: string[] = [];
      if (secretForms.some((form) => text.includes(form))) found.push('the shared secret');
      let signatures = 0;
      for (const match of text.matchAll(BASE64_RUN)) {
        if (prefixes.has(match[0].slice(0, PREFIX))) signatures += 1;
      }
      if (signatures > 0) found.push(`${signatures} signature value(s)`);
      return found;
    },
  };
}
