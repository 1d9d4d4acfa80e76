/**
 * The built-in release-browser settings, used when neither a flag nor the environment gives one
 * (settings.ts). In a module of their own so that the first-run hint (src/output/hints.ts) can name the
 * default without loading the settings, and a test can stand in a local default (vi.mock) without a
 * user-visible knob.
 */

/** Today's public release browser: the RHCOS mirror's prod streams (channels such as `4.16-9.4/builds`). */
export const DEFAULT_BASE_URL = 'https://rhcos.mirror.openshift.com/art/storage/prod/streams';
/**
 * There is no default channel: every stream of the mirror is some release's, and none is right for all. This
 * one is only named as an example, in the error for a missing channel and in help.
 */
export const EXAMPLE_CHANNEL = '4.16-9.4/builds';
export const DEFAULT_ARCH = 'x86_64';

/**
 * What a release script that pins a build but no channel meant when it was written (2019): the RHEL 7
 * channel, on the release browser of that time (which no longer answers). Pins are read with these so that
 * old branches still check.
 */
export const LEGACY_CHANNEL = 'maipo';
export const LEGACY_BASE_URL = 'https://releases-rhcos.svc.ci.openshift.org/storage/releases';
/** The channels that lived only on the legacy release browser (the 2018–2019 layout). */
export const LEGACY_CHANNELS: ReadonlySet<string> = new Set(['maipo', 'ootpa']);
