/**
 * Which part of the stack a profiled function belongs to, so a profile reads as "GC 19%, RSA
 * verify 10%, Express 6%" rather than as a list of hundreds of functions. Rules go from the most
 * specific to the most general; the first that matches wins.
 */

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

/** node_modules packages, by the group they count under. */
const PACKAGE_GROUPS: Record<string, string> = {
  express: 'Express (router, middleware)',
  router: 'Express (router, middleware)',
  'body-parser': 'Express (router, middleware)',
  'raw-body': 'Express (router, middleware)',
  'path-to-regexp': 'Express (router, middleware)',
  finalhandler: 'Express (router, middleware)',
  'on-finished': 'Express (router, middleware)',
  'content-type': 'Express (router, middleware)',
  'type-is': 'Express (router, middleware)',
  accepts: 'Express (router, middleware)',
  debug: 'Express (router, middleware)',
  parseurl: 'Express (router, middleware)',
  forwarded: 'Express (router, middleware)',
  'proxy-addr': 'Express (router, middleware)',
  qs: 'Express (router, middleware)',
  vary: 'Express (router, middleware)',
  fresh: 'Express (router, middleware)',
  statuses: 'Express (router, middleware)',
  'http-errors': 'Express (router, middleware)',
  'content-disposition': 'Express (router, middleware)',
  'mime-types': 'Express (router, middleware)',
  setprototypeof: 'Express (router, middleware)',
  helmet: 'helmet',
  pg: 'pg (Postgres client)',
  'pg-protocol': 'pg (Postgres client)',
  'pg-pool': 'pg (Postgres client)',
  'pg-types': 'pg (Postgres client)',
  'postgres-array': 'pg (Postgres client)',
  'postgres-date': 'pg (Postgres client)',
  kysely: 'kysely',
  pino: 'pino (logging)',
  'pino-std-serializers': 'pino (logging)',
  'sonic-boom': 'pino (logging)',
  'fast-redact': 'pino (logging)',
  '@pinojs/redact': 'pino (logging)',
  'quick-format-unescaped': 'pino (logging)',
  'atomic-sleep': 'pino (logging)',
  'on-exit-leak-free': 'pino (logging)',
  'safe-stable-stringify': 'pino (logging)',
  zod: 'zod (validation)',
  'node-jose': 'node-jose',
  'prom-client': 'prom-client (metrics)',
};

const V8_NAMED: Record<string, string> = {
  '(garbage collector)': 'GC',
  '(program)': 'V8/native (program)',
  '(root)': 'V8/native (program)',
  '(idle)': 'idle',
};

/** Functions whose native self time is RSA signature verification. */
const VERIFY = /^(verify|verifyOneShot|Verify|_verify)$/;
const JSON_NATIVE = /^(parse|stringify|JSONParse|JSONStringify)$/;
/** libuv stream bindings: the time to hand bytes to (or take them from) the kernel. */
const SOCKET_NATIVE =
  /^(writev|writeBuffer|writeString|writeUtf8String|writeLatin1String|writeAsciiString|writeUcs2String|readStart|readStop|shutdown)$/;

export function groupOf(frame: CallFrame): string {
  const { functionName, url } = frame;
  const named = V8_NAMED[functionName];
  if (named && url === '') return named;
  const pkg = packageOf(url);
  if (pkg !== undefined) return PACKAGE_GROUPS[pkg] ?? `other packages (${pkg})`;
  if (url.startsWith('node:internal/crypto/sig') || (url === '' && VERIFY.test(functionName))) {
    return 'RSA verify (node:crypto)';
  }
  if (url.startsWith('node:internal/crypto') || url === 'node:crypto')
    return 'crypto (hashes, other)';
  if (url === '' && JSON_NATIVE.test(functionName)) return 'JSON parse/stringify';
  if (url === '' && SOCKET_NATIVE.test(functionName)) return 'Node sockets and streams';
  if (/^node:(_http|http|internal\/http)/.test(url)) return 'Node HTTP';
  if (/^node:(net|internal\/(net|stream_base_commons|streams|socket))/.test(url)) {
    return 'Node sockets and streams';
  }
  if (url.startsWith('node:')) return 'Node internals (other)';
  if (url === '') return 'V8 builtins and natives';
  return 'own code (the server itself)';
}

/** The package a script belongs to: the last node_modules segment, scope included. */
function packageOf(url: string): string | undefined {
  const at = url.lastIndexOf('node_modules/');
  if (at < 0) return undefined;
  const parts = url.slice(at + 'node_modules/'.length).split('/');
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : parts[0];
}
