/**
 * Which description of the platform the sandbox plays. The interface document and the public
 * reference disagree on spellings, JSON types, paths and answers, and nobody can tell which one
 * the live platform follows; a client must survive both. `any` accepts every variant (handy for
 * demos, proves little); `interface` and `public` each accept only their own, as a .NET API
 * would: field names are case-sensitive, unknown fields are ignored, types are enforced.
 */
export const DIALECTS = ['any', 'interface', 'public'] as const;
export type Dialect = (typeof DIALECTS)[number];

export const DEFAULT_DIALECT: Dialect = 'any';
