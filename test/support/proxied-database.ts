import { startTcpProxy, type TcpProxy } from '../../tools/common/tcp-proxy.ts';
import type { TestDatabase } from './test-database.ts';

/** A TCP proxy in front of a test database, and the database's URL through it. */
export async function proxyDatabase(
  database: TestDatabase,
): Promise<{ proxy: TcpProxy; url: string }> {
  const url = new URL(database.url);
  const proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { proxy, url: url.toString() };
}
