/** A transport for one repository: the reference parsed, its credentials looked up, the stack assembled. */
import type { OnWarning } from '../errors.js';
import { defaultRetryPolicy, type HttpClient, type RetryPolicy } from '../http/client.js';
import { findCredential, type CredentialLookup } from './auth.js';
import { parseReference, type ImageReference } from './reference.js';
import { RegistryTransport } from './transport.js';

export interface ConnectOptions {
  registryConfig?: string;
  insecure?: boolean;
  caFile?: string;
  onWarning?: OnWarning;
  env?: NodeJS.ProcessEnv;
  home?: string;
  retry?: RetryPolicy;
  /** Tests and callers that want their own HTTP client. */
  client?: HttpClient;
  /**
   * Transports to share between images of one registry (one ping, tokens kept by scope): a command reading many
   * images passes one map. Shared only where the same credential applies.
   */
  transports?: Map<string, RegistryTransport>;
  /** Credential lookups to share the same way (the auth files are read once per repository, not per image). */
  credentials?: Map<string, Promise<CredentialLookup>>;
}

/**
 * Parse `ref` and look credentials up now, so a bad reference or auth
 * file fails before any request; then build the transport that will ping, authenticate and retry.
 */
export async function connect(
  ref: string,
  opts: ConnectOptions = {},
): Promise<{ reference: ImageReference; transport: RegistryTransport }> {
  const { reference } = parseReference(ref);
  const find = () =>
    findCredential(reference.registry, reference.repository, {
      ...(opts.registryConfig ? { registryConfig: opts.registryConfig } : {}),
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.home ? { home: opts.home } : {}),
      ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
    });
  const where = `${reference.registry}\0${reference.repository}`;
  let pending = opts.credentials?.get(where);
  if (!pending) {
    pending = find();
    opts.credentials?.set(where, pending);
  }
  const lookup = await pending;
  const key = [reference.registry, reference.apiHost, lookup.file ?? '', lookup.key ?? '', opts.insecure ?? false, opts.caFile ?? ''].join(
    '\0',
  );
  const shared = opts.transports?.get(key);
  if (shared) return { reference, transport: shared };
  const transport = new RegistryTransport({
    registry: reference.registry,
    apiHost: reference.apiHost,
    insecure: opts.insecure,
    caFile: opts.caFile,
    credential: async () => ({ credential: lookup.credential, ...(lookup.file ? { file: lookup.file } : {}) }),
    retry: opts.retry ?? defaultRetryPolicy(opts.env),
    ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
    ...(opts.client ? { client: opts.client } : {}),
  });
  opts.transports?.set(key, transport);
  return { reference, transport };
}
