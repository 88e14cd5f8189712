/**
 * Progress of the long steps (seeding, vacuuming, copying a database) on stderr, so a run that
 * takes minutes is never silent and stdout keeps only the results.
 */

export type Progress = (line: string) => void;

export const stderrProgress: Progress = (line) => {
  process.stderr.write(`${line}\n`);
};

/**
 * Runs `work`, saying every `everyMs` that it is still running (a VACUUM of millions of rows
 * says nothing for a minute).
 */
export async function withHeartbeat<T>(
  progress: Progress,
  label: string,
  work: () => Promise<T>,
  everyMs = 15_000,
): Promise<T> {
  const started = performance.now();
  progress(`${label} ...`);
  const timer = setInterval(
    () => progress(`${label}: still running, ${formatSeconds(performance.now() - started)}`),
    everyMs,
  );
  try {
    const result = await work();
    progress(`${label}: done in ${formatSeconds(performance.now() - started)}`);
    return result;
  } finally {
    clearInterval(timer);
  }
}

export function formatSeconds(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
