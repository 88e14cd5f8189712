import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { FeedCatalogue } from './catalogue.ts';

export interface CatalogueRouteOptions {
  catalogue: FeedCatalogue;
  /** The feed's own check of `Authorization` (the token of `GET /feed`). */
  authorised(req: Request): boolean;
}

/** A response body made once, with its strong validator. */
interface Document {
  readonly text: string;
  readonly etag: string;
}

function documentOf(value: unknown): Document {
  const text = JSON.stringify(value);
  const hash = createHash('sha256').update(text).digest('base64url').slice(0, 32);
  return { text, etag: `"${hash}"` };
}

/**
 * `GET /feed/schema` (`{version, types: {type: schema}}`) and `GET /feed/schema/<type>` (one
 * type's schema; 404 for a type the feed does not have), behind the feed's bearer token.
 * `?version=` names the catalogue version wanted (docs/feed-catalogue.md: an older version is
 * served beside a new one for a stated period); one this feed does not serve is a 404.
 *
 * The catalogue changes only with a release, so each answer carries a strong ETag (a hash of its
 * bytes) and `Cache-Control: private, no-cache`: a client keeps its copy and revalidates, and an
 * unchanged catalogue costs a 304 with no body. Private: the answer needs the token.
 */
export function catalogueRouter(options: CatalogueRouteOptions): Router {
  const all = documentOf(options.catalogue);
  const byType = new Map(
    Object.entries(options.catalogue.types).map(([type, schema]) => [type, documentOf(schema)]),
  );
  const router = Router();
  const { version } = options.catalogue;
  const refuse = (res: Response, status: number, error: string) => {
    res.setHeader('Cache-Control', 'no-store');
    res.status(status).json({ error });
  };
  /** Authorised, and asking for the version served (`?version=`, absent: the newest). */
  const guard = (req: Request, res: Response): boolean => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!options.authorised(req)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      refuse(res, 401, 'unauthorised');
      return false;
    }
    const asked = req.query.version;
    if (asked === undefined || asked === version) return true;
    refuse(
      res,
      404,
      `no catalogue version ${String(asked).slice(0, 40)}; this feed serves ${version}`,
    );
    return false;
  };
  const send = (req: Request, res: Response, document: Document, type: string) => {
    res.setHeader('Cache-Control', 'private, no-cache');
    res.setHeader('ETag', document.etag);
    if (req.fresh) return void res.status(304).end();
    res.status(200).type(type).send(document.text);
  };
  router.get('/feed/schema', (req, res) => {
    if (guard(req, res)) send(req, res, all, 'application/json');
  });
  router.get('/feed/schema/:type', (req, res) => {
    if (!guard(req, res)) return;
    const document = byType.get(req.params.type);
    if (document === undefined) {
      return refuse(
        res,
        404,
        `no such event type; the feed's types are ${[...byType.keys()].join(', ')}`,
      );
    }
    send(req, res, document, 'application/schema+json');
  });
  return router;
}
