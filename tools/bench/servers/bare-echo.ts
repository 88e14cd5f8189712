import express from 'express';

/**
 * The framework's ceiling: Express 5 reading the raw body and answering a tiny JSON, nothing
 * else. No signature, no database, no logging. Whatever a real receiver does costs on top of this.
 */

const app = express();
app.set('etag', false);
app.get('/healthz', (_req, res) => {
  res.json({ status: 'Ok' });
});
app.post('/webhooks/:eventName', express.raw({ type: () => true, limit: '4mb' }), (_req, res) => {
  res.json({ status: 'Ok' });
});

const server = app.listen(Number(process.env.PORT ?? 3001), '127.0.0.1');
// A peer server the bench starts and stops with SIGTERM, not a tool (no words, no run-tool):
// it exits itself once closed, as a merchant's server would.
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
