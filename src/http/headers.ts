/** The one list of headers osimage sends by default, and the ones that never leave their origin. */
import { packageVersion } from '../package-info.js';

/** Credentials: dropped when a redirect changes origin. */
export const SENSITIVE_HEADERS: readonly string[] = ['authorization', 'cookie', 'proxy-authorization'];

let userAgent: string | undefined;

/** `osimage/0.1.0`: the version from package.json. */
function agent(): string {
  userAgent ??= `osimage/${packageVersion()}`;
  return userAgent;
}

/** The default headers under the caller's (lower-case names; the caller's win). */
export function withDefaultHeaders(headers: Record<string, string> = {}): Record<string, string> {
  return { 'user-agent': agent(), ...headers };
}

/** The headers without credentials, for a hop to another origin. */
export function withoutSensitive(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !SENSITIVE_HEADERS.includes(k.toLowerCase())));
}

/** `Basic base64(user:password)`. */
export function basicHeader(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}
