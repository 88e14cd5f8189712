// A module customization hook for loaded-packages.mjs: posts the URL of every module loaded.
let port;

export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  port.postMessage(url);
  return nextLoad(url, context);
}
