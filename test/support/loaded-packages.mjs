// Run as `node --import tsx loaded-packages.mjs <module> <package>...`: imports the module, then
// prints (JSON) which of the packages it loaded. Only CommonJS packages (Express) can be seen:
// an import of one, from anywhere in the graph, leaves it in the CommonJS cache.
import console from 'node:console';
import process from 'node:process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [modulePath, ...packages] = process.argv.slice(2);
await import(pathToFileURL(modulePath).href);
const cached = Object.keys(createRequire(import.meta.url).cache);
const loaded = packages.filter((name) =>
  cached.some((file) => file.includes(`/node_modules/${name}/`)),
);
console.log(JSON.stringify(loaded));
