import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogStream } from '../../../src/lib/log-stream.ts';

// Descriptors are handed out lowest first: one this high is never open (writes fail with EBADF).
const NEVER_OPEN_FD = 2_000_000_000;
const LINE = `${'x'.repeat(99)}\n`;
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function openLogFile(): { fd: number; read: () => string } {
  dir = mkdtempSync(path.join(tmpdir(), 'log-stream-'));
  const file = path.join(dir, 'out.log');
  const fd = openSync(file, 'w');
  return { fd, read: () => readFileSync(file, 'utf8') };
}

describe('createLogStream', () => {
  it('when lines arrive faster than they are written, then those beyond the buffer are dropped and counted, the rest written', async () => {
    const file = openLogFile();
    const log = createLogStream({ fd: file.fd, maxBufferBytes: 10 * LINE.length });
    // Written in one go: the first write is still in flight while the others arrive.
    for (let i = 0; i < 100; i += 1) log.destination.write(LINE);
    expect(log.droppedLines()).toBe(90);
    expect(log.bufferedBytes()).toBe(10 * LINE.length);

    await log.flushWithin(5000);
    expect(log.bufferedBytes()).toBe(0);
    expect(file.read()).toBe(LINE.repeat(10));
    closeSync(file.fd);
  });

  it('when everything is written, then flushWithin resolves at once; when a write never ends, then it resolves after the wait', async () => {
    const file = openLogFile();
    const log = createLogStream({ fd: file.fd, maxBufferBytes: 1024 * 1024 });
    await log.flushWithin(60_000); // nothing buffered: no wait
    closeSync(file.fd);

    // A descriptor that cannot be written: the write fails, the line never goes out.
    const broken = createLogStream({ fd: NEVER_OPEN_FD, maxBufferBytes: 1024 * 1024 });
    broken.destination.write(LINE);
    const startedAt = Date.now();
    await broken.flushWithin(200);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(150);
    expect(broken.bufferedBytes()).toBe(LINE.length);
  });
});
