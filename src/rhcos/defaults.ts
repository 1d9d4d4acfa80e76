/**
 * The built-in release-browser settings, used when neither a flag nor the environment gives one
 * (settings.ts). In a module of their own so that the first-run hint (src/output/hints.ts) can name the
 * default without loading the settings, and a test can stand in an unreachable default (vi.mock) without a
 * user-visible knob.
 */

/** The historical release browser: it no longer answers (the CLI says so and what to use instead). */
export const DEFAULT_BASE_URL = 'https://releases-rhcos.svc.ci.openshift.org/storage/releases';
export const DEFAULT_CHANNEL = 'maipo';
export const DEFAULT_ARCH = 'x86_64';
