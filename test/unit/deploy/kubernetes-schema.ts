import path from 'node:path';
import ts from 'typescript';
import * as appsV1 from 'kubernetes-models/apps/v1';
import * as batchV1 from 'kubernetes-models/batch/v1';
import * as networkingV1 from 'kubernetes-models/networking.k8s.io/v1';
import * as policyV1 from 'kubernetes-models/policy/v1';
import * as coreV1 from 'kubernetes-models/v1';
import { ROOT } from './deploy-files.ts';
import type { Resource } from './kustomize.ts';

/**
 * Validation against the Kubernetes API's schemas, offline, from the `kubernetes-models` package
 * (generated from Kubernetes' OpenAPI document):
 *
 * - `schemaProblems`: the package's JSON-schema validators (types, required fields, enums,
 *   formats such as int-or-string and quantities), as the API server would refuse them.
 * - `unknownFieldProblems`: the same models' TypeScript declarations, compiled with each
 *   resource as an object literal: a misspelt or misplaced field (`readinesProbe`,
 *   `spec.template.containers`) is an excess property. The API server drops unknown fields
 *   with only a warning (or refuses them under strict field validation); either way the
 *   setting would not be in force, so here it fails.
 */

const MODULES: Record<string, { specifier: string; exports: Record<string, unknown> }> = {
  v1: { specifier: 'kubernetes-models/v1', exports: coreV1 },
  'apps/v1': { specifier: 'kubernetes-models/apps/v1', exports: appsV1 },
  'batch/v1': { specifier: 'kubernetes-models/batch/v1', exports: batchV1 },
  'networking.k8s.io/v1': {
    specifier: 'kubernetes-models/networking.k8s.io/v1',
    exports: networkingV1,
  },
  'policy/v1': { specifier: 'kubernetes-models/policy/v1', exports: policyV1 },
};

type ModelClass = new (data: unknown) => { validate(): void };

function modelOf(resource: Resource): { specifier: string; Model: ModelClass } {
  const module = MODULES[resource.apiVersion];
  const Model = module?.exports[resource.kind];
  if (!module || typeof Model !== 'function') {
    throw new Error(`${resource.apiVersion} ${resource.kind}: no schema known to this test`);
  }
  return { specifier: module.specifier, Model: Model as ModelClass };
}

const nameOf = (r: Resource) => `${r.kind}/${r.metadata.name}`;

export function schemaProblems(resources: readonly Resource[]): string[] {
  return resources.flatMap((resource) => {
    const { Model } = modelOf(resource);
    try {
      new Model(resource).validate();
      return [];
    } catch (error) {
      return [`${nameOf(resource)}: ${error instanceof Error ? error.message : String(error)}`];
    }
  });
}

export function unknownFieldProblems(resources: readonly Resource[]): string[] {
  // Inside the project, so that `kubernetes-models` resolves from its node_modules.
  const fileName = path.join(ROOT, 'test/unit/deploy/__rendered-resources__.ts');
  const lines = resources.map((resource, index) => {
    const { specifier } = modelOf(resource);
    return `export const r${index}: import('${specifier}').I${resource.kind} = ${JSON.stringify(resource)};`;
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, languageVersion, ...rest) =>
    path.resolve(name) === fileName
      ? ts.createSourceFile(name, source, languageVersion, true)
      : getSourceFile(name, languageVersion, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => path.resolve(name) === fileName || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (path.resolve(name) === fileName ? source : readFile(name));
  const program = ts.createProgram([fileName], options, host);
  const sourceFile = program.getSourceFile(fileName);
  return ts.getPreEmitDiagnostics(program, sourceFile).map((diagnostic) => {
    const line =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line
        : -1;
    const resource = resources[line];
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    return `${resource ? nameOf(resource) : 'rendered resources'}: ${message}`;
  });
}
