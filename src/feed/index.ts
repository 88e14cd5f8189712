/**
 * The feed: every stored event handed to the merchant's systems at least once, pushed (relay)
 * or pulled (GET /feed), and the assigner that orders the outbox. Outside src/feed/, import from
 * here; the service's feed itself (it loads Express) from app.ts.
 */

export { feedCommand } from './feed-command.ts';
export { feedAttemptsPruneStep, feedEventsPruneStep } from './prune-steps.ts';
