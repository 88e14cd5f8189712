import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { throughputPhase, warmUp, type RoundsContext } from './core/rounds.ts';
import { profileDir, type BenchServer } from './core/servers.ts';
import { summariseProfile, type CpuProfile, type ProfileSummary } from './profile-summary.ts';

/**
 * `npm run bench -- --profile`: each server (the receiver unless --only says otherwise) already
 * runs under `node --cpu-prof`; it gets the usual warm-up and one throughput phase, is stopped
 * (Node writes the profile as it exits), and the phase's slice of the profile is summarised:
 * self time by group and the top functions. Profiling costs CPU itself, so the phase's rate is
 * not comparable with a normal run's; the shares are what to read.
 */

interface ProfileResult {
  server: string;
  deliveriesPerSecond: number;
  answered200: number;
  file: string;
  summary: ProfileSummary;
}

export async function profileServers(
  ctx: RoundsContext & { benchDir: string; projectDir: string },
): Promise<void> {
  const results: ProfileResult[] = [];
  for (const server of ctx.servers) {
    results.push(await profileOne(ctx, server));
    ctx.log(renderProfile(results.at(-1)));
  }
  const jsonPath = join(ctx.benchDir, 'profile.json');
  writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  ctx.log(`JSON: ${relative(ctx.projectDir, jsonPath)}`);
}

async function profileOne(
  ctx: RoundsContext & { benchDir: string; projectDir: string },
  server: BenchServer,
): Promise<ProfileResult> {
  const rate = await warmUp(ctx, server);
  ctx.log(`profiling ${server.name}: one throughput phase of ${ctx.options.duration} s`);
  const { load } = await throughputPhase(ctx, server, rate);
  // The profile is written when the process exits.
  await server.process.stop();
  const dir = profileDir(ctx.benchDir, server.name);
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`${server.name} wrote no .cpuprofile into ${dir}`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const answered200 = load.statusCounts['200'] ?? 0;
  return {
    server: server.name,
    deliveriesPerSecond: load.okPerSecond,
    answered200,
    file: relative(ctx.projectDir, join(dir, file)),
    summary: summariseProfile(profile, {
      startUs: load.monotonicUs.start,
      endUs: load.monotonicUs.end,
    }),
  };
}

const pct = (value: number) => `${value.toFixed(1)}%`.padStart(6);

export function renderProfile(result: ProfileResult | undefined): string {
  if (!result) return '';
  const { summary } = result;
  const perDelivery = (ms: number) =>
    result.answered200 > 0 ? `${((1000 * ms) / result.answered200).toFixed(1)} µs` : '-';
  const lines = [
    '',
    `Profile of ${result.server}: ${(summary.windowMs / 1000).toFixed(1)} s, ` +
      `${Math.round(result.deliveriesPerSecond)} deliveries/s under --cpu-prof (profiling slows ` +
      `it: read the shares, not the rate); main thread busy ` +
      `${((100 * summary.busyMs) / Math.max(summary.windowMs, 1e-9)).toFixed(0)}% of the phase` +
      (summary.windowed ? '' : ' (phase not found in the profile: whole profile shown)'),
    'Self time by group (share of busy time, µs per delivery):',
    ...summary.groups.map(
      (g) => `  ${pct(g.percentOfBusy)}  ${perDelivery(g.ms).padStart(9)}  ${g.name}`,
    ),
    'Top functions by self time:',
    ...summary.functions.map((f) => `  ${pct(f.percentOfBusy)}  ${f.name}  [${f.group}]`),
    'Builtins (JSON.parse, RegExp, Buffer copies) count in their caller, not on their own; ' +
      "GC is the main thread's share only.",
    `Profile: ${result.file} (opens in Chrome DevTools or speedscope)`,
  ];
  return lines.join('\n');
}
