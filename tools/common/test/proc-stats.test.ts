import { describe, expect, it } from 'vitest';
import { parseCpuSeconds, parseMemory, readCpuSeconds, readMemory } from '../proc-stats.ts';

describe('/proc parsing', () => {
  it('when the command name holds spaces and parentheses, then utime and stime are still fields 14 and 15', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    const stat = '4242 (node (bench) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 3 1 20 0 11 0';
    expect(parseCpuSeconds(stat)).toBeCloseTo(3.25);
    expect(() => parseCpuSeconds('not a stat line')).toThrow(/not a \/proc/);
  });

  it('when /proc/<pid>/status is read, then VmRSS and VmHWM come out in bytes', () => {
    const status = 'Name:\tnode\nVmPeak:\t 900000 kB\nVmHWM:\t  153100 kB\nVmRSS:\t   84900 kB\n';
    expect(parseMemory(status)).toEqual({ rssBytes: 84_900 * 1024, peakRssBytes: 153_100 * 1024 });
    expect(() => parseMemory('Name:\tnode\n')).toThrow(/VmRSS|VmHWM/);
  });

  it('when this process is read, then its figures are plausible', () => {
    const memory = readMemory(process.pid);
    expect(memory.peakRssBytes).toBeGreaterThanOrEqual(memory.rssBytes);
    expect(readCpuSeconds(process.pid)).toBeGreaterThan(0);
  });
});
