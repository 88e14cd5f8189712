import process from 'node:process';

/**
 * @typedef {(msg: string, fields?: Record<string, unknown>) => void} LogFn
 * @typedef {{ info: LogFn, warn: LogFn, error: LogFn }} Log
 */

/**
 * One JSON object per line on stdout (what a log collector expects). Never pass secrets, tokens
 * or payer details: log event ids, types, positions and business keys only.
 *
 * @param {(line: string) => void} [write]
 * @returns {Log}
 */
export function createLog(write = (line) => process.stdout.write(line)) {
  /** @param {string} level */
  const at =
    (level) =>
    /** @type {LogFn} */ (msg, fields = {}) =>
      write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  return { info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * A log that keeps its lines in memory (for tests).
 *
 * @returns {Log & { lines: Record<string, unknown>[] }}
 */
export function memoryLog() {
  /** @type {Record<string, unknown>[]} */
  const lines = [];
  return { ...createLog((line) => lines.push(JSON.parse(line))), lines };
}

/**
 * A short description of an error for a log line (fetch hides the reason in `cause`).
 *
 * @param {unknown} error
 * @returns {string}
 */
export function describeError(error) {
  if (!(error instanceof Error)) return String(error);
  const { code, cause } = /** @type {{ code?: unknown, cause?: unknown }} */ (error);
  const text = typeof code === 'string' ? `${error.message} (${code})` : error.message;
  return cause === undefined ? text : `${text}: ${describeError(cause)}`;
}
