import { groupOf, type CallFrame } from './profile-groups.ts';

/**
 * Where a server's main thread spent its time, from a V8 CPU profile (`node --cpu-prof`): self
 * time per group (GC, RSA verify, JSON, Express, pg, ...) and per function, over a window of the
 * profile (the measured phase, not start-up or warm-up).
 */

/** The parts of a .cpuprofile (Chrome DevTools format) that are read here. */
export interface CpuProfile {
  nodes: readonly { id: number; callFrame: CallFrame }[];
  /** Microseconds on the machine's monotonic clock (process.hrtime in any process). */
  startTime: number;
  endTime: number;
  /** Node id of each sample, in order. */
  samples?: readonly number[];
  /** Microseconds from the previous sample (the first: from startTime). */
  timeDeltas?: readonly number[];
}

export interface ProfileShare {
  name: string;
  /** Self time in the window, milliseconds. */
  ms: number;
  /** Of the busy (not idle) time. */
  percentOfBusy: number;
}

export interface ProfileSummary {
  windowMs: number;
  /** Time the main thread was not idle, milliseconds. */
  busyMs: number;
  /** Whether the window was found in the profile (else the whole profile was summarised). */
  windowed: boolean;
  groups: ProfileShare[];
  functions: (ProfileShare & { group: string })[];
}

const IDLE = '(idle)';

export function summariseProfile(
  profile: CpuProfile,
  window?: { startUs: number; endUs: number },
  topFunctions = 15,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const timed = timedSamples(profile);
  const inWindow = window
    ? timed.filter((sample) => sample.at >= window.startUs && sample.at <= window.endUs)
    : timed;
  const windowed = window !== undefined && inWindow.length > 0;
  const used = windowed ? inWindow : timed;

  const selfUs = new Map<number, number>();
  for (const sample of used) selfUs.set(sample.node, (selfUs.get(sample.node) ?? 0) + sample.us);

  const groups = new Map<string, number>();
  const functions = new Map<string, { us: number; group: string }>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id);
    if (!frame || frame.functionName === IDLE) continue;
    busyUs += us;
    const group = groupOf(frame);
    groups.set(group, (groups.get(group) ?? 0) + us);
    const key = describeFrame(frame);
    const entry = functions.get(key) ?? { us: 0, group };
    entry.us += us;
    functions.set(key, entry);
  }
  const share = (name: string, us: number): ProfileShare => ({
    name,
    ms: us / 1000,
    percentOfBusy: busyUs === 0 ? 0 : (100 * us) / busyUs,
  });
  const span = windowed && window ? window.endUs - window.startUs : spanOf(profile);
  return {
    windowMs: span / 1000,
    busyMs: busyUs / 1000,
    windowed,
    groups: [...groups]
      .map(([name, us]) => share(name, us))
      .sort((a, b) => b.ms - a.ms || a.name.localeCompare(b.name)),
    functions: [...functions]
      .map(([name, { us, group }]) => ({ ...share(name, us), group }))
      .sort((a, b) => b.ms - a.ms || a.name.localeCompare(b.name))
      .slice(0, topFunctions),
  };
}

/**
 * Each sample with its time and weight: the time until the next sample (as DevTools counts
 * self time); the last sample gets the median interval.
 */
function timedSamples(profile: CpuProfile): { node: number; at: number; us: number }[] {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const times: number[] = [];
  let at = profile.startTime;
  for (let i = 0; i < samples.length; i += 1) {
    at += deltas[i] ?? 0;
    times.push(at);
  }
  const typical = [...deltas].sort((a, b) => a - b)[Math.floor(deltas.length / 2)] ?? 0;
  return samples.map((node, i) => ({
    node,
    at: times[i] ?? at,
    us: i + 1 < samples.length ? (times[i + 1] ?? at) - (times[i] ?? at) : typical,
  }));
}

function spanOf(profile: CpuProfile): number {
  return Math.max(0, profile.endTime - profile.startTime);
}

function describeFrame(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  const file = frame.url
    .replace(/^.*node_modules\//, '')
    .replace(/^file:\/\/.*?\/(dist|\.data)\//, '$1/');
  return `${name} ${file}:${frame.lineNumber + 1}`;
}
