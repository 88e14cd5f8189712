const MAX_QUOTED_CHARS = 40;

/**
 * A short, human description of a refused value for the problem list ("the text \"ten\"",
 * "an object"). Long text is cut so a 400 answer or a quarantine reason never echoes a whole
 * field back.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `the text ${quote(value)}`;
    case 'number':
      return `the number ${String(value)}`;
    case 'boolean':
      return String(value);
    case 'undefined':
      return 'nothing';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

function quote(text: string): string {
  const shown = text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text;
  return JSON.stringify(shown);
}
