/** A registry's unexpected answer as an error: the URL, the status, the registry's own codes, and a `code`. */
import type { ErrorCode } from '../errors.js';
import { FetchError } from '../errors.js';
import { discard, readCapped, statusText, type Response } from '../http/client.js';
import { goRequestText } from '../http/network.js';
import { redactUrl } from '../http/redact.js';

const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Pull a registry error body apart: `MANIFEST_UNKNOWN: manifest unknown`. `goText` is how oc's registry client
 * (docker/distribution's errcode) words a single error, `manifest unknown: manifest unknown`, when it is one.
 */
export function describeRegistryErrors(body: Buffer): { codes: string[]; text: string; goText?: string } {
  try {
    const doc = JSON.parse(body.toString('utf8')) as { errors?: Array<{ code?: unknown; message?: unknown }> };
    if (Array.isArray(doc?.errors) && doc.errors.length) {
      const codes = doc.errors.map((e) => (typeof e?.code === 'string' ? e.code : '')).filter(Boolean);
      const text = doc.errors
        .map((e) => [typeof e?.code === 'string' ? e.code : '', typeof e?.message === 'string' ? e.message : ''].filter(Boolean).join(': '))
        .join('; ');
      const [only] = doc.errors;
      const goText =
        doc.errors.length === 1 && typeof only?.code === 'string' && /^[A-Z][A-Z_]*$/.test(only.code) && typeof only.message === 'string'
          ? `${only.code.replaceAll('_', ' ').toLowerCase()}: ${only.message}`
          : undefined;
      return { codes, text, goText };
    }
  } catch {
    // not JSON: fall through
  }
  const text = body.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200);
  return { codes: [], text };
}

const NOT_FOUND_CODES = ['MANIFEST_UNKNOWN', 'NAME_UNKNOWN', 'BLOB_UNKNOWN', 'BLOB_UPLOAD_UNKNOWN'];
const DENIED_CODES = ['UNAUTHORIZED', 'DENIED'];

/** The ErrorCode of a registry answer: 'not-found', 'unauthorized' or 'http'. */
export function registryErrorCode(status: number, codes: readonly string[] = []): ErrorCode {
  if (status === 404 || codes.some((c) => NOT_FOUND_CODES.includes(c))) return 'not-found';
  if (status === 401 || status === 403 || codes.some((c) => DENIED_CODES.includes(c))) return 'unauthorized';
  return 'http';
}

/**
 * The error for a registry response we did not expect, naming the URL, status and the registry's codes.
 * `detail` is the registry's own text (`MANIFEST_UNKNOWN: manifest unknown`, '' when it gave none), so a
 * caller can word its own message without taking this one apart.
 */
export class RegistryError extends FetchError {
  readonly codes: string[];
  readonly detail: string;
  /** The registry's error as oc prints it (`manifest unknown: manifest unknown`), when it sent exactly one. */
  readonly goDetail: string | undefined;
  override readonly code: ErrorCode;
  constructor(message: string, url: string, status: number, codes: string[], detail = '', goDetail?: string) {
    super(message, url, status);
    this.name = 'RegistryError';
    this.codes = codes;
    this.detail = detail;
    this.goDetail = goDetail;
    this.code = registryErrorCode(status, codes);
  }
}

/** `404 Not Found from URL: MANIFEST_UNKNOWN: …`: the status, where (redacted), and the registry's detail. */
export function statusFrom(status: number, url: string, detail = ''): string {
  return `${statusText(status)} from ${redactUrl(url)}${detail ? `: ${detail}` : ''}`;
}

/**
 * Why the registry said 401: `text` when the answer is not the registry's own (a host it redirected to), else who
 * we were (`username`, undefined when no user's credentials were sent), where the credentials came from, whether
 * any credential went with the request, and whether the registry asked for Basic auth.
 */
export type UnauthorizedInfo =
  | { text: string }
  | { registry: string; username: string | undefined; file: string | undefined; basic: boolean; sent: boolean };
export type Unauthorized = () => Promise<UnauthorizedInfo>;

/** Go's name for a request method in its errors (`Get`, `Head`). */
const goOp = (method = 'GET') => method.charAt(0).toUpperCase() + method.slice(1).toLowerCase();

/** What an UnauthorizedError knows besides its text. */
export interface UnauthorizedFields {
  registry: string;
  /** The user whose credentials were refused; undefined when none were sent. */
  username: string | undefined;
  /** The auth file the credentials came from. */
  file: string | undefined;
  /** No credential was found for a registry that asked for Basic auth. */
  noBasicCredentials: boolean;
}

/**
 * A registry that wants credentials it did not get. The text is what oc's registry client says: with no credential
 * for a Basic challenge, `Head "URL": no basic auth credentials` (Go's client does not send such a request; osimage
 * sends it without credentials, for registries that let anonymous pulls through, and words the 401 as oc would);
 * with credentials refused, or none for a token, the registry's error (`unauthorized: authentication required`,
 * which is also Go's text for a 401 without a body). Who we were and where the credentials came from are kept
 * for the CLI's hint (src/output/hints.ts), not put in the message.
 */
export class UnauthorizedError extends RegistryError {
  readonly registry: string;
  readonly username: string | undefined;
  readonly file: string | undefined;
  readonly noBasicCredentials: boolean;
  /** The text after `<what>: `. */
  readonly text: string;
  constructor(
    what: string,
    url: string,
    method: string | undefined,
    fields: UnauthorizedFields,
    codes: string[],
    detail: string,
    goDetail?: string,
  ) {
    const text = fields.noBasicCredentials
      ? `${goOp(method)} ${JSON.stringify(redactUrl(url))}: no basic auth credentials`
      : (goDetail ?? 'unauthorized: authentication required');
    super(`${what}: ${text}`, url, 401, codes, detail, goDetail);
    this.name = 'UnauthorizedError';
    this.registry = fields.registry;
    this.username = fields.username;
    this.file = fields.file;
    this.noBasicCredentials = fields.noBasicCredentials;
    this.text = text;
  }

  /**
   * The same failure named as oc names it while reading `image`: `unable to read image REF: …`. `method`: the
   * request oc's client makes for it (a tag's manifest is asked for with HEAD first), for the no-credentials text.
   */
  forImage(image: string, method: string): UnauthorizedError {
    return new UnauthorizedError(`unable to read image ${image}`, this.url, method, this, this.codes, this.detail, this.goDetail);
  }
}

/**
 * Turn an unexpected response into a one-line error naming what, where and why; the body (capped) is
 * read for the registry's error codes, except for HEAD. A 401 is an UnauthorizedError (see there).
 */
export async function registryFailure(
  res: Response,
  what: string,
  method: string | undefined,
  unauthorized: Unauthorized,
  requestUrl = res.url,
): Promise<RegistryError> {
  let detail = '';
  let goDetail: string | undefined;
  let codes: string[] = [];
  if (method !== 'HEAD') {
    try {
      ({ codes, text: detail, goText: goDetail } = describeRegistryErrors(await readCapped(res, MAX_ERROR_BODY_BYTES, 'error response')));
    } catch {
      discard(res.body);
    }
  } else {
    await res.body.dump().catch(() => undefined);
  }
  if (res.status === 401) {
    const info = await unauthorized();
    if ('text' in info) return new RegistryError(`${what}: ${info.text}`, res.url, res.status, codes, detail, goDetail);
    const { registry, username, file } = info;
    const fields = { registry, username, file, noBasicCredentials: info.basic && !info.sent };
    return new UnauthorizedError(what, requestUrl, method, fields, codes, detail, goDetail);
  }
  return new RegistryError(`${what}: ${statusFrom(res.status, res.url, detail)}`, res.url, res.status, codes, detail, goDetail);
}

/**
 * A registry that gave no answer at all (no such host, refused, reset, timeout, TLS), in oc's words: `unable
 * to read image REF: Get "URL": dial tcp 127.0.0.1:1: connect: connection refused` (src/http/network.ts
 * words the cause as Go does). Before an image is named (the ping is the registry's), `cannot reach registry
 * R: Get "URL": …`; the image source names its image with {@link UnreachableRegistryError.forImage}. What to do
 * about it is the CLI's hint (src/output/hints.ts), which reads `insecure` and the cause's code.
 */
export class UnreachableRegistryError extends FetchError {
  readonly registry: string;
  /** Whether --insecure was in effect (plain http was tried too, verification was off). */
  readonly insecure: boolean;
  /** The image being read, when one was. */
  readonly image: string | undefined;
  private readonly failure: FetchError;
  constructor(registry: string, failure: FetchError, insecure: boolean, image?: string) {
    const text = goRequestText(failure, redactUrl(failure.url));
    super(
      image === undefined ? `cannot reach registry ${registry}: ${text}` : `unable to read image ${image}: ${text}`,
      failure.url,
      undefined,
      failure,
      'registry-unreachable',
    );
    this.name = 'UnreachableRegistryError';
    this.registry = registry;
    this.insecure = insecure;
    this.image = image;
    this.failure = failure;
  }

  /** The same failure, named as oc names it while reading `image`. */
  forImage(image: string): UnreachableRegistryError {
    return this.image === undefined ? new UnreachableRegistryError(this.registry, this.failure, this.insecure, image) : this;
  }
}
