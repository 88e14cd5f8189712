import { existsSync } from 'node:fs';
import process from 'node:process';
import path from 'node:path';
import { cruise, format } from 'dependency-cruiser';
import rules from './boundaries.mjs';

/**
 * `npm run lint:boundaries`: the rules of lint/boundaries.mjs (dependency-cruiser), and one check
 * dependency-cruiser has no rule for: no two folders import each other, directly or round a
 * loop. A file cycle is caught by the rules; a folder cycle can hide among files that do not
 * form one (a.ts imports ../b/x.ts, b/y.ts imports ../a/z.ts), and it is what makes a tree hard
 * to read: neither folder can be understood first.
 */

const PROJECT = path.dirname(import.meta.dirname);
const CHECKED = ['src', 'tools', 'migrations'];

/** Cruises `roots` under `baseDir` with the project's rules; the raw result and its violations. */
export async function cruiseBoundaries(baseDir = PROJECT, roots = CHECKED) {
  const { options, ...ruleSet } = rules;
  const { tsConfig, ...cruiseOptions } = options;
  const tsConfigFile = path.join(baseDir, tsConfig.fileName);
  const present = roots.filter((root) => existsSync(path.join(baseDir, root)));
  const reporterOutput = await cruise(present, {
    ...cruiseOptions,
    baseDir,
    ruleSet,
    validate: true,
    ...(baseDir === PROJECT && { tsConfig: { fileName: tsConfigFile } }),
  });
  return reporterOutput.output;
}

/** Folders (of files under `roots`) that reach each other through imports: each loop, sorted. */
export function folderCycles(result) {
  const folderOf = (file) => path.posix.dirname(file);
  const graph = new Map();
  for (const module of result.modules) {
    if (module.coreModule || module.source.includes('node_modules')) continue;
    for (const dependency of module.dependencies) {
      if (dependency.coreModule || dependency.resolved.includes('node_modules')) continue;
      const from = folderOf(module.source);
      const to = folderOf(dependency.resolved);
      if (from === to) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from).add(to);
    }
  }
  return stronglyConnected(graph)
    .filter((component) => component.length > 1)
    .map((component) => component.sort());
}

/** Tarjan's algorithm: the strongly connected components of a directed graph. */
function stronglyConnected(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const neighbour of graph.get(node) ?? []) {
      if (!index.has(neighbour)) {
        visit(neighbour);
        low.set(node, Math.min(low.get(node), low.get(neighbour)));
      } else if (onStack.has(neighbour)) {
        low.set(node, Math.min(low.get(node), index.get(neighbour)));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      components.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components;
}

async function main() {
  const result = await cruiseBoundaries();
  const report = await format(result, { outputType: 'err' });
  process.stdout.write(report.output);
  const cycles = folderCycles(result);
  for (const cycle of cycles) {
    process.stdout.write(
      `  error folder-cycle: these folders import each other: ${cycle.join(', ')}\n`,
    );
  }
  if (report.exitCode > 0 || cycles.length > 0) process.exitCode = 1;
}

if (process.argv[1] === import.meta.filename) await main();
