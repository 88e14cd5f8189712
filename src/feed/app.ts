/**
 * The feed's second door: the service's feed (the assigner, the relay and `GET /feed` on its
 * own Express listener), for the composer that serves it. Apart from src/feed/index.ts so that
 * code which only needs the feed's commands or its prune step (the prune command) never loads
 * Express.
 */

export { startFeed } from './start-feed.ts';
