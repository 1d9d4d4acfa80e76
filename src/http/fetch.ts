import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { FetchError, OsimageError, describe } from '../errors.js';
import { readCapped } from './body.js';
import { basicHeader } from './headers.js';
import { netrcCredential } from './netrc.js';
import { hasUserinfo, redactUrl } from './redact.js';
import { type HttpClient, httpClient } from './http-client.js';
import { withRetries, type RetryPolicy } from './retry.js';
import { expectOk } from './status.js';
import { tooDeep, tooDeepMessage } from '../json.js';

/** Documents we read whole (builds.json, meta.json) are small; refuse anything absurd. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

export interface FetchOptions {
  maxBytes?: number;
  retry?: RetryPolicy;
  headers?: Record<string, string>;
  /** The client to send with (default: verified TLS, the process's pool). */
  client?: HttpClient;
}

/**
 * Fetch a whole document over http(s) or from a file:// URL, with the same errors for both:
 * a missing file is a 404 naming the URL. HTTP requests retry on 429, 5xx and resets.
 */
export async function fetchBytes(url: string, opts: FetchOptions = {}): Promise<Buffer> {
  const maxBytes = opts.maxBytes ?? MAX_DOCUMENT_BYTES;
  const parsed = new URL(url);
  if (parsed.protocol === 'file:') return readFileUrl(parsed, url, maxBytes);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new OsimageError(`unsupported URL scheme ${parsed.protocol} in ${redactUrl(url)} (use http, https or file)`);
  }
  const client = opts.client ?? httpClient();
  const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5', ...opts.headers };
  // No credential in the URL: the netrc file may have one for this host (pins never carry one).
  if (!hasUserinfo(url) && !Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) {
    const cred = await netrcCredential(parsed.hostname);
    if (cred) headers.authorization = basicHeader(cred.username, cred.password);
  }
  return withRetries(async () => {
    const res = await expectOk(await client.send(url, { headers }));
    return readCapped(res, maxBytes);
  }, opts.retry);
}

async function readFileUrl(parsed: URL, url: string, maxBytes: number): Promise<Buffer> {
  const path = fileURLToPath(parsed);
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new FetchError(`not a file: ${url}`, url);
    if (st.size > maxBytes) throw new FetchError(`${url} is ${st.size} bytes, more than the ${maxBytes} allowed`, url);
    return await readFile(path);
  } catch (err) {
    if (err instanceof FetchError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new FetchError(`no such file (404 Not Found) at ${url}`, url, 404, err);
    throw new FetchError(`cannot read ${url}: ${describe(err)}`, url, undefined, err);
  }
}

/** Fetch and parse JSON; bad JSON is an error naming the URL. */
export async function fetchJson(url: string, opts: FetchOptions = {}): Promise<unknown> {
  const bytes = await fetchBytes(url, opts);
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new OsimageError(`failed to parse JSON from ${redactUrl(url)}: ${describe(err)}`);
  }
  // Whatever reads the document next walks it by recursion: refuse what no release browser serves, here, once.
  const deep = tooDeep(doc);
  if (deep !== undefined) throw new OsimageError(`failed to parse JSON from ${redactUrl(url)}: it ${tooDeepMessage(deep)}`);
  return doc;
}
