/**
 * Signature stores in the layout the cluster-version operator reads (library-go pkg/verify, store/sigstore and
 * its file store): `<store>/<algorithm>=<hex>/signature-<n>`, n from 1 to 9, stopping at the first that does
 * not exist. A store is an http(s) or file:// URL. Each signature is read whole up to 50 KiB; a bigger one is an
 * error, not a truncated read. Over HTTP the one client and its redirect policy apply, and a redirect must stay
 * on the store's origin: a store that sends its readers elsewhere is refused. A failure to read one signature is
 * reported and the next is tried, as the operator does; a missing one ends the store.
 */
import { fileURLToPath } from 'node:url';
import { FetchError, OsimageError, describe, hasCode } from '../../errors.js';
import { isMissing, readRegularFile } from '../../files/read.js';
import { type HttpClient, expectOk, httpClient, readCapped, withRetries } from '../../http/client.js';
import { redactUrl } from '../../http/redact.js';
import { nextHop, redirectLocation, type Hop } from '../../http/redirect.js';

/** The operator reads at most this much of a signature. */
export const MAX_SIGNATURE_BYTES = 50 * 1024;
/** signature-1 … signature-9, as the operator's search (`i < 10`). */
export const MAX_SIGNATURES_PER_STORE = 9;
const MAX_REDIRECTS = 5;

export interface StoreRead {
  /** Where the signature was read (`https://…/sha256=…/signature-1`, `file:///…`). */
  url: string;
  bytes?: Buffer;
  /** Why it could not be read (a one-line message naming `url`). */
  error?: string;
}

export interface StoreOptions {
  client?: HttpClient;
}

/** The store's folder for `digest`: `<algorithm>=<hex>`. */
export function digestFolder(digest: string): string {
  const i = digest.indexOf(':');
  if (i <= 0 || i === digest.length - 1 || digest.indexOf(':', i + 1) >= 0) {
    throw new OsimageError(`the digest ${digest} is not of the form ALGO:HASH`, { code: 'invalid-input' });
  }
  return `${digest.slice(0, i)}=${digest.slice(i + 1)}`;
}

/** A store URL as given (`--store`, a ConfigMap's `store-*`), checked: http, https or file. */
export function parseStoreUrl(value: string, source: string): URL {
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    throw new OsimageError(`${source}: "${value}" is not a URL (a store is an http://, https:// or file:// URL)`, {
      code: 'invalid-input',
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:' && u.protocol !== 'file:') {
    throw new OsimageError(`${source}: the store ${redactUrl(value)} must be an http://, https:// or file:// URL`, {
      code: 'invalid-input',
    });
  }
  return u;
}

/** The URL of signature `n` for `digest` under `store`. */
export function signatureUrl(store: URL, digest: string, n: number): string {
  const u = new URL(store.toString());
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/${digestFolder(digest)}/signature-${n}`;
  return u.toString();
}

/** Read the signatures of `digest` in `store`, in order, up to the first missing one. */
export async function readStore(store: URL, digest: string, opts: StoreOptions = {}): Promise<StoreRead[]> {
  const reads: StoreRead[] = [];
  for (let n = 1; n <= MAX_SIGNATURES_PER_STORE; n++) {
    const url = signatureUrl(store, digest, n);
    let bytes: Buffer | undefined;
    try {
      bytes = store.protocol === 'file:' ? await readFileSignature(url) : await readHttpSignature(store, url, opts.client ?? httpClient());
    } catch (err) {
      reads.push({ url, error: describe(err) });
      continue;
    }
    if (bytes === undefined) break;
    reads.push(bytes.length === 0 ? { url, error: `${redactUrl(url)}: the signature is empty` } : { url, bytes });
  }
  return reads;
}

async function readFileSignature(url: string): Promise<Buffer | undefined> {
  const path = fileURLToPath(url);
  try {
    return await readRegularFile(path, MAX_SIGNATURE_BYTES);
  } catch (err) {
    if (hasCode(err, 'file-missing') || isMissing(err)) return undefined;
    throw err;
  }
}

/** GET one signature, following redirects that stay on the store's origin; undefined for a 404. */
async function readHttpSignature(store: URL, url: string, client: HttpClient): Promise<Buffer | undefined> {
  return withRetries(async () => {
    let hop: Hop = { url, method: 'GET', headers: {}, body: undefined };
    for (let count = 0; ; count++) {
      const res = await client.send(hop.url, { maxRedirects: 0, what: `signature ${redactUrl(url)}` });
      const location = redirectLocation(res.status, res.headers);
      if (location !== undefined) {
        await res.body.dump().catch(() => undefined);
        const next = nextHop(
          hop,
          res.status,
          location,
          Math.min(count, MAX_REDIRECTS),
          { maxRedirects: MAX_REDIRECTS, allowDowngrade: false },
          redactUrl(url),
        );
        if (new URL(next.url).origin !== store.origin) {
          throw new FetchError(
            `refusing redirect out of the signature store ${redactUrl(store.toString())}: ${redactUrl(hop.url)} redirected to ${redactUrl(next.url)}`,
            hop.url,
            res.status,
          );
        }
        hop = next;
        continue;
      }
      if (res.status === 404) {
        await res.body.dump().catch(() => undefined);
        return undefined;
      }
      await expectOk(res, 'signature');
      return readCapped(res, MAX_SIGNATURE_BYTES, 'signature');
    }
  });
}
