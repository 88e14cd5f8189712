// Run as `node --import tsx loaded-packages.mjs <module> <name>...`: imports the module, then
// prints (JSON) which of the names it loaded. A name is a package (`express`, `csv-parse`), seen
// under node_modules/, or a folder of the project (`src/platform/cli/`). CommonJS packages are
// seen in the CommonJS cache; ES modules (csv-parse's, the project's own files) through a load
// hook that reports every URL loaded.
import console from 'node:console';
import process from 'node:process';
import { createRequire, register } from 'node:module';
import { pathToFileURL, URL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const [modulePath, ...names] = process.argv.slice(2);
const { port1, port2 } = new MessageChannel();
const loadedUrls = [];
// A last module of our own, loaded after the one probed: once the hook reports it, every URL
// reported before it (the same port keeps their order) has arrived.
const SENTINEL = 'data:text/javascript,export default "loaded-packages sentinel"';
const allReported = new Promise((resolve) => {
  port1.on('message', (url) => (url === SENTINEL ? resolve() : loadedUrls.push(url)));
});
register(new URL('./loaded-modules-hook.mjs', import.meta.url), {
  data: { port: port2 },
  transferList: [port2],
});
await import(pathToFileURL(modulePath).href);
await import(SENTINEL);
await allReported;
port1.close();
const files = [
  ...Object.keys(createRequire(import.meta.url).cache),
  ...loadedUrls.map((url) => decodeURIComponent(url)),
];
const loaded = names.filter((name) =>
  files.some((file) =>
    file.includes(name.startsWith('src/') ? `/${name}` : `/node_modules/${name}/`),
  ),
);
console.log(JSON.stringify(loaded));
