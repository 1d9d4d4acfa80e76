/** Reading response bodies: whole and capped, or not at all. */
import { FetchError, describe } from '../errors.js';
import { redactUrl } from './redact.js';
import { TransientError, isTransientNetworkError } from './retry.js';
import type { Response } from './types.js';

/** Stop reading a body we do not want; the library reports the abort as an error nobody needs to see. */
export function discard(body: { on(event: 'error', fn: (err: unknown) => void): unknown; destroy(): unknown; destroyed?: boolean }): void {
  body.on('error', () => undefined);
  if (!body.destroyed) body.destroy();
}

/**
 * Read a whole body up to `max` bytes; a larger one (declared or sent) is an error naming the URL.
 * A connection lost while reading is a TransientError, so a retry loop reads again.
 */
export async function readCapped(
  res: Pick<Response, 'body' | 'headers' | 'url' | 'status'>,
  max: number,
  what = 'response',
): Promise<Buffer> {
  const url = res.url;
  const shown = redactUrl(url);
  const declared = Number(res.headers['content-length']);
  if (res.headers['content-length'] !== undefined && Number.isFinite(declared) && declared > max) {
    discard(res.body);
    throw new FetchError(`${what} from ${shown} is ${declared} bytes, more than the ${max} allowed`, url, res.status);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of res.body) {
      total += (chunk as Buffer).length;
      if (total > max) {
        discard(res.body);
        throw new FetchError(`${what} from ${shown} is larger than the ${max} bytes allowed`, url, res.status);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof FetchError) throw err;
    const msg = `reading ${what} from ${shown} failed: ${describe(err)}`;
    if (isTransientNetworkError(err)) throw new TransientError(msg, url, res.status, undefined, err);
    throw new FetchError(msg, url, res.status, err);
  }
  return Buffer.concat(chunks, total);
}
