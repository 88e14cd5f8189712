import { z } from 'zod';
import { lenientObject } from './lenient.ts';

/** `{"token": "<JWT>"}`; other spellings an OAuth-style issuer uses are accepted too. */
export const tokenResponse = lenientObject(
  { token: z.string({ error: 'token is missing' }).min(1, 'token is empty') },
  { token: ['access_token', 'accessToken'] },
);
