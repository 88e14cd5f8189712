/**
 * HTTP Basic credentials. The API key is the username with an empty password on the payments
 * endpoints, and the password (with the mAccount number as username) on the token endpoint.
 */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

export function bearerAuthorization(token: string): string {
  return `Bearer ${token}`;
}
