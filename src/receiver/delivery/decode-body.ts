import { isUtf8 } from 'node:buffer';
import type { EventModel, FieldProblem, TypedRows } from '../events/types.ts';

export type DecodedBody =
  | {
      ok: true;
      typed: TypedRows;
      /** Optional fields stored as null (or read with a caveat), kept with the delivery. */
      warnings: FieldProblem[];
      /**
       * False when the bytes are not valid UTF-8: decoding replaced the bad bytes, so typed rows
       * hold U+FFFD where raw_body holds the originals. Accepted (a signed sender,
       * nothing lost) but worth a line in the log for whoever repairs the row.
       */
      validUtf8: boolean;
    }
  | { ok: false; problems: FieldProblem[] };

const UTF8_BOM = '\uFEFF';

/**
 * Check 7 of the contract: content type, JSON, and (for modelled events) the event's schema.
 * An unmodelled event only has to be JSON; its meaning is left to whoever reads it later.
 */
export function decodeBody(
  rawBody: Buffer,
  contentType: string | undefined,
  model: EventModel | undefined,
): DecodedBody {
  const typeProblem = checkContentType(contentType);
  if (typeProblem) return { ok: false, problems: [typeProblem] };

  // .NET senders may start UTF-8 with a byte-order mark; JSON.parse would refuse it.
  let text = rawBody.toString('utf8');
  if (text.startsWith(UTF8_BOM)) text = text.slice(1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      problems: [
        { path: '', message: rawBody.length === 0 ? 'Body is empty' : 'Body is not valid JSON' },
      ],
    };
  }

  const validUtf8 = isUtf8(rawBody);
  if (!model) {
    return {
      ok: true,
      typed: { kind: 'unmodelled', rows: [] },
      warnings: [],
      validUtf8,
    };
  }

  // The models list at most MAX_LISTED problems and warnings (and a count), and keep every
  // value they return storable: text with a NUL or a lone surrogate is refused or nulled there.
  const parsed = model.parse(json);
  if (!parsed.ok) return { ok: false, problems: parsed.problems };
  return { ok: true, typed: parsed.typed, warnings: parsed.warnings, validUtf8 };
}

function checkContentType(contentType: string | undefined): FieldProblem | undefined {
  // What the platform sends, answered without taking the header apart.
  if (contentType === 'application/json') return undefined;
  const [mediaType = '', ...parameters] = (contentType ?? '').split(';');
  const media = mediaType.trim().toLowerCase();
  if (media !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(media)) {
    return {
      path: 'headers.Content-Type',
      message: contentType ? `Content-Type ${media} is not JSON` : 'Content-Type header is missing',
    };
  }
  const charset = parameters
    .map((parameter) => parameter.trim().toLowerCase())
    .find((parameter) => parameter.startsWith('charset='))
    ?.slice('charset='.length)
    .replaceAll('"', '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return {
      path: 'headers.Content-Type',
      message: `charset ${charset} is not supported (UTF-8 only)`,
    };
  }
  return undefined;
}
