import path from 'node:path';

/**
 * The project's layers, as an ESLint rule (`layers/imports`): what may import what. Paths are
 * resolved, so `../../src/x.ts` and `./x.ts` are judged by where they land, not how they are
 * spelled. Package imports (`pg`, `node:fs`) are always allowed. docs/architecture.md explains
 * the layers; the rule is the part of it that cannot drift.
 *
 *   migrations/**     nothing from the project (frozen in time)
 *   src/lib/**        only src/lib/**: generic jobs, one home each, importable from anywhere
 *   src/common/**     only src/common/** and src/lib/**
 *   src/** (service)  only src/**: never tools/, test/ or migrations/
 *   tools/**          tools/**, src/lib/**, src/common/**, and TOOL_SERVICE_MODULES below
 *   tools/**\/test/**, test/**: anything (tests reach into every layer)
 */

const ROOT = path.dirname(import.meta.dirname);

/**
 * The receiver modules a tool may use, each for a reason that makes copying it worse: operating
 * the receiver's own database (export-quarantine, the load-balancer proof), and judging a
 * delivery exactly as the receiver does (export-quarantine, replay). Keep this list short.
 */
export const TOOL_SERVICE_MODULES = [
  // The receiver's database, opened with the receiver's configuration.
  'src/config.ts',
  'src/logger.ts',
  'src/storage/database.ts',
  'src/storage/open-database.ts',
  'src/storage/embedded-postgres.ts',
  'src/storage/operator-database.ts',
  // The receiver's own judgement: event models, the key, the signature, the Webhookid.
  'src/events/registry.ts',
  'src/verification/public-key.ts',
  'src/verification/key-fetch.ts',
  'src/verification/signature.ts',
  'src/delivery/webhook-id.ts',
];

/** The receiver's pipeline: what answers the platform. */
const PIPELINE = [
  'src/http',
  'src/delivery',
  'src/events',
  'src/storage',
  'src/verification',
  'src/capture',
];

/** What sits around the pipeline and may use it, never the other way round. */
const AROUND_THE_PIPELINE = [
  'src/feed',
  'src/provider',
  'src/recovery',
  'src/quarantine',
  'src/cli',
];

const under = (file, folder) => file === folder || file.startsWith(`${folder}/`);

function layerOf(file) {
  if (under(file, 'migrations')) return 'migrations';
  if (under(file, 'src/lib')) return 'lib';
  if (under(file, 'src/common')) return 'common';
  if (PIPELINE.some((folder) => under(file, folder))) return 'pipeline';
  if (under(file, 'src')) return 'service';
  if (under(file, 'tools') && file.split('/').includes('test')) return 'test';
  if (under(file, 'tools')) return 'tool';
  return 'other'; // test/, configuration files
}

/** Why `importer` may not import `target` (both relative to the root), or undefined. */
export function layerViolation(importer, target) {
  switch (layerOf(importer)) {
    case 'migrations':
      return 'a migration imports nothing from the project: it must not change when the code does';
    case 'lib':
      return under(target, 'src/lib')
        ? undefined
        : 'src/lib imports only src/lib: every layer builds on it, so it builds on none';
    case 'common':
      return under(target, 'src/common') || under(target, 'src/lib')
        ? undefined
        : 'src/common imports only src/common and src/lib: both the service and the tools build on it';
    case 'pipeline':
      if (!under(target, 'src')) {
        return 'the service (src/) imports only src/: no tools, tests or migrations in the runtime';
      }
      return AROUND_THE_PIPELINE.some((folder) => under(target, folder))
        ? 'the delivery pipeline never imports feed/, provider/, recovery/, quarantine/ or cli/: receiving must not depend on them'
        : undefined;
    case 'service':
      return under(target, 'src')
        ? undefined
        : 'the service (src/) imports only src/: no tools, tests or migrations in the runtime';
    case 'tool':
      return under(target, 'tools') ||
        under(target, 'src/lib') ||
        under(target, 'src/common') ||
        TOOL_SERVICE_MODULES.includes(target)
        ? undefined
        : 'a tool imports tools/, src/lib/, src/common/ and the few receiver modules listed in lint/layers.js';
    default:
      return undefined;
  }
}

function check(context, node) {
  const source = node.source;
  if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
  const specifier = source.value;
  if (!specifier.startsWith('.') && !path.isAbsolute(specifier)) return; // a package
  const importer = path.relative(ROOT, context.filename).split(path.sep).join('/');
  const resolved = path.resolve(path.dirname(context.filename), specifier);
  const target = path.relative(ROOT, resolved).split(path.sep).join('/');
  const why = layerViolation(importer, target);
  if (why) context.report({ node: source, messageId: 'layer', data: { specifier, why } });
}

const importsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforces which layer of the project may import which' },
    messages: { layer: "'{{specifier}}': {{why}}" },
    schema: [],
  },
  create(context) {
    const visit = (node) => check(context, node);
    return {
      ImportDeclaration: visit,
      ExportNamedDeclaration: visit,
      ExportAllDeclaration: visit,
      ImportExpression: visit,
    };
  },
};

export const layersPlugin = { rules: { imports: importsRule } };
