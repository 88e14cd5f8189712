/**
 * The feed: every stored event handed to the merchant's systems at least once, pushed (relay)
 * or pulled (GET /feed), and the assigner that orders the outbox. Outside src/feed/, import from
 * here.
 */

export { feedCommand } from './feed-command.ts';
export { startFeed } from './start-feed.ts';
