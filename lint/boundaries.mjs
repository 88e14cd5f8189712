/**
 * The project's boundaries, checked by dependency-cruiser (`npm run lint:boundaries`, part of
 * `npm run lint`): which module may import which, through which door, and no cycles. Paths are
 * judged where imports land, type-only imports included. docs/architecture.md draws the modules;
 * this file is the part of it that cannot drift. test/unit/lint/boundaries.test.ts tests each rule
 * both ways on small trees of its own.
 *
 *   src/lib/         generic jobs, one home each: imports only src/lib/
 *   src/receiver/    answers the platform: src/lib/ only, never capture, feed, platform, operations, cli
 *   src/capture/     the capture format (files of answered deliveries): the receiver and src/lib/
 *   src/feed/        hands stored events on: the receiver (its door) and src/lib/
 *   src/platform/    the platform as a client sees it: src/lib/ only (money and leases live there)
 *   src/operations/  retention and quarantine: the receiver (its door) and src/lib/
 *   src/cli/         the one command line: composes everything above (through their doors)
 *   tools/           src/lib/ and the modules' doors; never src/cli/ (but its composed
 *                    configuration, config.ts) or test/
 *   migrations/      nothing from the project: frozen in time
 *
 * A module's door is its index.ts: from outside it, nothing else of it is imported; a module
 * that serves HTTP may have a second door, app.ts, for its Express app only, so that what
 * imports the module for anything else never loads Express; and a module with settings has
 * config.ts, its configuration sections only, which src/cli/config.ts composes; the receiver's
 * data contract and signature check have doors of their own (contract.ts, signature.ts), and so
 * has what the running service needs of the platform (scheduled.ts: the scheduled recovery and
 * its prune steps, without the provider command line and client). Direction
 * rules use `reachable`, so a path through a third module is caught as well as a direct import.
 */

/** Modules with a door (index.ts). src/lib/ has none: each of its files is a small library. */
const MODULES = 'receiver|capture|platform|feed|operations';

/**
 * A module's doors, as a path: index.ts, and app.ts and config.ts where it has them; the
 * receiver also has contract.ts (the data contract) and signature.ts (the platform's signature),
 * which the feed, capture, operations and the tools read without its running parts; the
 * platform has scheduled.ts, what `serve` and `prune` need of it.
 */
const DOOR = `^src/((${MODULES})/(index|app|config)|receiver/(contract|signature)|platform/scheduled)\\.ts$`;

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-cycles',
      comment:
        'Files that import each other in a loop cannot be understood (or tested) one at a time.',
      severity: 'error',
      from: { path: '^(src|tools)/' },
      to: { circular: true },
    },
    {
      name: 'lib-stands-alone',
      comment: 'src/lib/ imports only src/lib/: every module builds on it, so it builds on none.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^(src/(?!lib/)|tools/|test/|migrations/)' },
    },
    {
      name: 'receiver-stands-alone',
      comment: 'Receiving never depends on what sits around it: not even through a third module.',
      severity: 'error',
      from: { path: '^src/receiver/' },
      to: { path: '^src/(capture|feed|platform|operations|cli)/', reachable: true },
    },
    {
      name: 'capture-builds-on-receiver',
      comment:
        'The capture format reads what the receiver answered: the receiver and src/lib/, nothing around them.',
      severity: 'error',
      from: { path: '^src/capture/' },
      to: { path: '^src/(feed|platform|operations|cli)/', reachable: true },
    },
    {
      name: 'feed-apart-from-platform',
      comment: 'The feed and the platform client each build on the receiver, never on each other.',
      severity: 'error',
      from: { path: '^src/feed/' },
      to: { path: '^src/platform/', reachable: true },
    },
    {
      name: 'platform-builds-on-lib',
      comment:
        'The platform client needs no receiving code: money and leases are src/lib/, its tables its own.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/(receiver|operations)/', reachable: true },
    },
    {
      name: 'operations-apart-from-platform',
      comment: 'Operating stored data never calls the platform: the lease it shares is src/lib/.',
      severity: 'error',
      from: { path: '^src/operations/' },
      to: { path: '^src/platform/', reachable: true },
    },
    {
      name: 'platform-apart-from-feed',
      comment: 'The feed and the platform client each build on the receiver, never on each other.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/feed/', reachable: true },
    },
    {
      name: 'only-the-cli-composes',
      comment: 'src/cli/ wires modules together; no module reaches back up into it.',
      severity: 'error',
      from: { path: '^src/(?!cli/)' },
      to: { path: '^src/cli/', reachable: true },
    },
    {
      name: 'operations-above-feed',
      comment: 'Operating stored data never depends on the feed.',
      severity: 'error',
      from: { path: '^src/operations/' },
      to: { path: '^src/feed/', reachable: true },
    },
    {
      name: 'through-the-door',
      comment:
        'From outside a module, import its index.ts: what it does not export there is its own.',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: `^src/(${MODULES})/`, pathNot: ['^src/$1/', DOOR] },
    },
    {
      name: 'tools-through-the-door',
      comment: "A tool imports a module's index.ts, as any other outsider does.",
      severity: 'error',
      from: { path: '^tools/', pathNot: '/test/' },
      to: { path: `^src/(${MODULES})/`, pathNot: [DOOR] },
    },
    {
      name: 'runtime-without-tools',
      comment: 'The service runs without tools/, test/ or migrations/ in its imports.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(tools|test|migrations)/' },
    },
    {
      name: 'tools-use-doors-and-lib',
      comment:
        'A tool uses src/lib/ and the modules’ doors; never the command line or test code, but the configuration it composes (the docs are written from it, and a tool reads the settings as a command does).',
      severity: 'error',
      from: { path: '^tools/', pathNot: '/test/' },
      to: { path: '^(src/cli/|test/)', pathNot: '^src/cli/config\\.ts$' },
    },
    {
      name: 'cli-config-composes-settings',
      comment:
        'src/cli/config.ts composes the modules’ settings (their config.ts) and src/lib/’s, nothing else: a tool reading the configuration loads no module’s code but its settings.',
      severity: 'error',
      from: { path: '^src/cli/config\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/lib/', `^src/(${MODULES})/config\\.ts$`] },
    },
    {
      name: 'migrations-frozen',
      comment:
        'A migration imports nothing from the project: it must not change when the code does.',
      severity: 'error',
      from: { path: '^migrations/' },
      to: { path: '^(src|tools|test)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
