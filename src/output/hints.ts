/**
 * What to do about a failure, when osimage knows: one hint, printed by the CLI as a second line,
 * `info: <hint>`, after `error: <message>`. Errors are told apart by their `code` and their cause's
 * network code (src/http/network.ts), never by their message.
 */
import { FetchError } from '../errors.js';
import { networkFailure } from '../http/network.js';
import { UnauthorizedError, UnreachableRegistryError } from '../registry/errors.js';
import { DEFAULT_BASE_URL, EXAMPLE_CHANNEL, LEGACY_BASE_URL, LEGACY_CHANNELS } from '../rhcos/defaults.js';

const under = (url: string, base: string) => url === base || url.startsWith(`${base}/`);
/** Where the public mirror keeps the per-release channels (`rhcos-4.12`) that predate its prod streams. */
const MIRROR_RELEASES_URL = 'https://rhcos.mirror.openshift.com/art/storage/releases';

/** The one hint for `err`, or undefined when there is nothing useful to add. */
export function hintFor(err: unknown): string | undefined {
  if (err instanceof UnreachableRegistryError) return registryHint(err);
  if (err instanceof UnauthorizedError) return credentialsHint(err);
  // The release browser: only a built-in one gets a hint (a URL the user gave is theirs to fix).
  if (err instanceof FetchError && err.status === 404 && under(err.url, DEFAULT_BASE_URL) && err.url.endsWith('/builds.json')) {
    return missingStreamHint(err.url.slice(DEFAULT_BASE_URL.length + 1, -'/builds.json'.length));
  }
  if (err instanceof FetchError && err.code === 'network' && networkFailure(err) !== undefined) {
    if (under(err.url, DEFAULT_BASE_URL)) {
      return (
        `osimage's default release browser, the public RHCOS mirror ${DEFAULT_BASE_URL}, did not answer: check the network ` +
        '(and any proxy settings), or point --base-url (or RHCOS_BASE_URL) at a mirror of it or at a folder on disk'
      );
    }
    if (under(err.url, LEGACY_BASE_URL)) {
      return (
        `${LEGACY_BASE_URL}, the release browser of the ${[...LEGACY_CHANNELS].join(' and ')} channels (2019), no longer answers: ` +
        'point --base-url at a copy of it (a mirror, or a folder on disk)'
      );
    }
  }
  return undefined;
}

/** A channel the default mirror lacks: a typo of a stream's name, or a channel that lives on another release browser. */
function missingStreamHint(channel: string): string {
  if (/^rhcos-\d/.test(channel)) {
    return (
      `channel ${channel} is not one of the public RHCOS mirror's streams (named like ${EXAMPLE_CHANNEL}): ` +
      `the rhcos-4.N channels are on ${MIRROR_RELEASES_URL} (give it as --base-url)`
    );
  }
  return `the public RHCOS mirror ${DEFAULT_BASE_URL} has no stream ${channel}: its streams are named like ${EXAMPLE_CHANNEL} or rhel-10.2/builds`;
}

/** Who the registry refused, or that no credentials were found for it, and where they are looked for. */
function credentialsHint(err: UnauthorizedError): string {
  if (err.username !== undefined) {
    return `${err.registry} refused the credentials of ${err.username}${err.file ? ` from ${err.file}` : ''}: check the user and password (or token) there`;
  }
  if (err.file !== undefined) return `${err.registry} refused the token from ${err.file}`;
  return (
    `no credentials for ${err.registry} were found: give an auth file (a pull secret, or podman's or docker's login file) ` +
    'with -a FILE or $REGISTRY_AUTH_FILE, or log in with `podman login`'
  );
}

function registryHint(err: UnreachableRegistryError): string | undefined {
  switch (networkFailure(err)) {
    case 'untrusted-certificate':
      return err.insecure
        ? undefined
        : "the registry's certificate is not signed by a CA this system trusts: give its CA with --certificate-authority FILE, or skip verification with --insecure";
    case 'tls':
      return err.insecure ? undefined : 'for a registry that speaks plain HTTP, or whose certificate does not verify, use --insecure';
    case 'no-such-host':
      return 'no host has that name: check the registry in the image reference (and any proxy settings)';
    case 'refused':
    case 'reset':
    case 'timeout':
      return err.insecure
        ? 'is the registry running at that address?'
        : 'is the registry running? for a plain-HTTP registry (e.g. on localhost) use --insecure';
    default:
      return undefined;
  }
}
