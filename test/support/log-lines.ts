import { Writable } from 'node:stream';

export interface LogLines {
  /** Give to createLogger as its destination. */
  sink: Writable;
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
  /** The raw text, for "this secret never appears" assertions. */
  text(): string;
}

/** Collects what a pino logger writes, so a test can assert on its log lines. */
export function logLines(): LogLines {
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return {
    sink,
    lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => raw.join('\n'),
  };
}
