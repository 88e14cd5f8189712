/**
 * The receiver's second door: its HTTP app (Express, helmet), for the composer that serves it.
 * Apart from src/receiver/index.ts so that code which only stores, reads or re-drives deliveries
 * (the quarantine and prune commands) never loads Express.
 */

export { createApp } from './http/app.ts';
