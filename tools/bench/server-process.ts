// For tools/edge-attacks until it imports ./core/servers.ts itself.
export { freePort } from '../common/free-port.ts';
export { startServer, type RunningServer } from './core/servers.ts';
