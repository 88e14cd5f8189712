import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { configVariables, SECRET_FILE_VARIABLES } from '../../src/cli/config.ts';
import type { Variable as ConfigVariable } from '../../src/lib/config/variable.ts';
import { replaceBetweenMarkers as replaceMarked } from '../common/markers.ts';

/**
 * The README's configuration table and `.env.example`, written from the one declaration of each
 * variable (beside the module that reads it; src/cli/config.ts composes them, in the README's
 * order). `npm run docs:config` writes them; the test in test/unit/config-docs.test.ts fails
 * when the committed files differ from what this renders.
 */

export const TABLE_START = '<!-- config-table:start -->';
export const TABLE_END = '<!-- config-table:end -->';
/** docker-compose.yml's block of variables passed through to the receivers when set. */
export const COMPOSE_START = '# config-passthrough:start';
export const COMPOSE_END = '# config-passthrough:end';

/** Comment lines of `.env.example` stop at this column, like the code (Prettier's printWidth). */
const WIDTH = 100;

export interface DocFile {
  /** Relative to the project. */
  readonly file: string;
  /** What is there now (undefined: no such file). */
  readonly current: string | undefined;
  /** What the declaration says should be there. */
  readonly expected: string;
  /** What it describes, for the progress lines. */
  readonly what: string;
}

/** Both files, rendered from the declaration and compared with the project's copies. */
export async function configDocFiles(projectDir: string): Promise<DocFile[]> {
  const read = (file: string) => {
    try {
      return readFileSync(path.join(projectDir, file), 'utf8');
    } catch {
      return undefined;
    }
  };
  const variables = configVariables();
  const readme = read('README.md');
  if (readme === undefined) throw new Error('README.md: not found');
  const table = await formatMarkdown(renderReadmeTable(variables), projectDir);
  const withTable = replaceBetweenMarkers(readme, table);
  if (withTable === undefined) {
    throw new Error(
      `README.md: no configuration table to rewrite: it needs ${TABLE_START} and ${TABLE_END}, each on a line of its own, around it`,
    );
  }
  const composeFile = read('docker-compose.yml');
  if (composeFile === undefined) throw new Error('docker-compose.yml: not found');
  const withPassThrough = replaceMarked(
    composeFile,
    renderComposePassThrough(variables, composeFile),
    { start: COMPOSE_START, end: COMPOSE_END },
  );
  if (withPassThrough === undefined) {
    throw new Error(
      `docker-compose.yml: no block of variables to rewrite: it needs ${COMPOSE_START} and ${COMPOSE_END}, each on a line of its own, around it`,
    );
  }
  const compose = composeDefaults(composeFile);
  return [
    {
      file: 'README.md',
      current: readme,
      expected: withTable,
      what: `configuration table, ${variables.length} variables`,
    },
    {
      file: '.env.example',
      current: read('.env.example'),
      expected: renderEnvExample(variables, compose),
      what: `${variables.length} variables, ${compose.size} Compose defaults`,
    },
    {
      file: 'docker-compose.yml',
      current: composeFile,
      expected: withPassThrough,
      what: "the receivers' pass-through variables",
    },
  ];
}

/** The first line that differs, so a CI log says where to look. */
export function describeDifference(file: DocFile): string {
  if (file.current === undefined) return 'the file is missing';
  const now = file.current.split('\n');
  const wanted = file.expected.split('\n');
  const at = wanted.findIndex((line, index) => now[index] !== line);
  const index = at < 0 ? wanted.length : at;
  const shorten = (line: string | undefined) =>
    line === undefined
      ? '(end of file)'
      : JSON.stringify(line.length > 120 ? `${line.slice(0, 117)}...` : line);
  return `first at line ${index + 1}: has ${shorten(now[index])}, should have ${shorten(wanted[index])}`;
}

/**
 * docker-compose.yml's pass-through block: every variable the receivers' environment does not
 * already set above it, as `  NAME:` (Compose passes it from the shell or `.env` when set, and
 * not at all when unset). Development-only variables are left out.
 */
function renderComposePassThrough(
  variables: readonly ConfigVariable[],
  composeFile: string,
): string {
  const before = composeFile.slice(0, Math.max(0, composeFile.indexOf(COMPOSE_START)));
  const setAbove = new Set([...before.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]));
  return variables
    .filter((v) => !v.developmentOnly && !setAbove.has(v.name))
    .map((v) => `  ${v.name}:`)
    .join('\n');
}

/** The README's table: variable, default, meaning. Unformatted: Prettier pads it. */
function renderReadmeTable(variables: readonly ConfigVariable[]): string {
  const rows = variables.map((v) => `| \`${v.name}\` | ${defaultCell(v)} | ${v.doc} |`);
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

function defaultCell(variable: ConfigVariable): string {
  if (variable.default !== undefined) return `\`${String(variable.default)}\``;
  return variable.defaultText ?? '_(unset)_';
}

/**
 * `${NAME:-value}` in docker-compose.yml: Compose's own default for a variable, which a key
 * set in `.env` would override.
 */
export function composeDefaults(composeFile: string): Map<string, string> {
  const defaults = new Map<string, string>();
  for (const [, name, value] of composeFile.matchAll(/\$\{([A-Z][A-Z0-9_]*):-([^}]*)\}/g)) {
    if (name !== undefined && !defaults.has(name)) defaults.set(name, value ?? '');
  }
  return defaults;
}

/**
 * `.env.example`: every variable with its description, in sections; a variable with a default
 * is set to it, one without is shown commented out (with an example value when it has one).
 */
export function renderEnvExample(
  variables: readonly ConfigVariable[],
  compose: ReadonlyMap<string, string>,
): string {
  const names = new Set<string>(variables.map((v) => v.name));
  const composeDiffers = variables.filter(
    (v) => v.default !== undefined && compose.has(v.name) && compose.get(v.name) !== value(v),
  );
  const lines = [
    ...comment(
      'Copy to .env (or set in your deployment). Every key but the shared secret (below) is optional; the defaults are shown. `npm start` reads .env when present (a variable set in the process environment wins over the file), as Docker Compose does; `npm run start:prod` reads only the process environment.',
    ),
    ...comment(
      `Docker Compose reads this file too: a key set here overrides Compose's own default, so the keys whose Compose default differs (${composeDiffers.map((v) => v.name).join(', ')}) are commented out.`,
    ),
    ...comment(
      'Generated from the declarations src/cli/config.ts composes (`npm run docs:config`): change a variable where it is declared, not here.',
    ),
  ];
  for (const variable of variables) {
    if (variable.section !== undefined) {
      lines.push('', `# --- ${variable.section} ---`);
      if (variable.sectionNote !== undefined) lines.push(...comment(variable.sectionNote));
    }
    lines.push(...comment(variable.doc));
    const composeValue = compose.get(variable.name);
    if (variable.default === undefined) {
      lines.push(`# ${variable.name}=${variable.example ?? ''}`);
    } else if (composeValue !== undefined && composeValue !== value(variable)) {
      lines.push(
        `# ${variable.name}=${value(variable)}   (default ${value(variable)}; Compose: ${composeValue})`,
      );
    } else {
      lines.push(`${variable.name}=${value(variable)}`);
    }
  }
  const [firstSecret] = SECRET_FILE_VARIABLES;
  if (firstSecret !== undefined) {
    lines.push(
      '',
      '# --- Secrets from files ---',
      ...comment(
        `Any of ${SECRET_FILE_VARIABLES.join(', ')} may instead be read from a file (Docker/Kubernetes secrets): set NAME_FILE to its path; one trailing newline is dropped. Not both NAME and NAME_FILE.`,
      ),
      `# ${firstSecret}_FILE=/run/secrets/${firstSecret.toLowerCase()}`,
    );
  }
  const composeOnly = [...compose].filter(([name]) => !names.has(name));
  if (composeOnly.length > 0) {
    lines.push(
      '',
      '# --- Docker Compose only (docker-compose.yml; the receiver does not read these) ---',
      ...comment(
        "Compose's defaults shown. A database password goes into a URL: URL-safe characters only.",
      ),
      ...composeOnly.map(([name, composeValue]) => `# ${name}=${composeValue}`),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A default as the environment spells it. */
function value(variable: ConfigVariable): string {
  return String(variable.default);
}

/**
 * Markdown prose as `#` comment lines of at most WIDTH columns: links become their text, and
 * a `code span` is never split across lines.
 */
export function comment(markdown: string): string[] {
  const text = markdown.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1');
  const words: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const last = words.at(-1);
    const inCode = last !== undefined && (last.match(/`/g) ?? []).length % 2 === 1;
    if (inCode) words[words.length - 1] = `${last} ${word}`;
    else words.push(word);
  }
  const lines: string[] = [];
  let line = '#';
  for (const word of words) {
    if (line !== '#' && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  if (line !== '#') lines.push(line);
  return lines;
}

/** The README with its configuration table replaced (tools/common/markers.ts). */
export function replaceBetweenMarkers(document: string, content: string): string | undefined {
  return replaceMarked(
    document,
    content,
    { start: TABLE_START, end: TABLE_END },
    { blankLines: true },
  );
}

/** Through the project's Prettier settings, as `npm run lint` checks the README. */
async function formatMarkdown(markdown: string, projectDir: string): Promise<string> {
  const filepath = path.join(projectDir, 'README.md');
  const config = await prettier.resolveConfig(filepath);
  return prettier.format(markdown, { ...config, filepath });
}
