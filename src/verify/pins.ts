/**
 * The bootimage `verify` compares: the build a release script pins. The pins are read exactly as
 * `pin --check` reads them (src/pin: parseScript + readPins + layerSettings, environment ignored), so a
 * script that `pin --check` accepts names the same build here.
 */
import { OsimageError } from '../errors.js';
import { readText } from '../files/read.js';
import { layerSettings } from '../pin/plan.js';
import { misspeltPins, parseScript, readPins } from '../pin/script.js';
import { pinNames, type Settings } from '../rhcos/settings.js';

export interface PinnedSettings {
  settings: Settings;
  /** `FILE:LINE` of the build pin (RHCOS_BUILD_NAME, or the OS stream's RHCOS_<STREAM>_BUILD_NAME). */
  buildPin: string;
}

/**
 * Settings from the pins in `file`. `--base-url` may point at a mirror and `--arch` picks the architecture,
 * as with `pin --check`; the build and channel come from the file alone. A missing file, a misspelt pin, a
 * pin osimage cannot read, or no build pin is an error naming the file. With `osStream` the pins are that OS
 * stream's variables (`rhel-10` → `RHCOS_RHEL_10_BUILD_NAME`, …), as `pin --check --os-stream` reads them.
 */
export async function settingsFromPinsFile(
  file: string,
  flags: { baseUrl?: string | undefined; arch?: string | undefined; osStream?: string | undefined } = {},
): Promise<PinnedSettings> {
  const text = await readText(file);
  const parsed = parseScript(text);
  const misspelt = misspeltPins(parsed);
  if (misspelt.length > 0) {
    const list = misspelt.map((m) => `${m.name} (line ${m.line}; did you mean ${m.suggestion}?)`).join(', ');
    throw new OsimageError(`${file} assigns ${list}, which osimage does not read: the pin would be silently ignored`);
  }
  const pins = readPins(parsed, file, flags.osStream);
  const build = pins.RHCOS_BUILD_NAME;
  const name = pinNames(flags.osStream).RHCOS_BUILD_NAME;
  if (!build || build.value === '') {
    const where = build ? `${name} is empty on line ${build.line}` : `it does not assign ${name}`;
    throw new OsimageError(`${file} has no pin: ${where}, so there is no pinned bootimage to verify`);
  }
  const layered = layerSettings({ baseUrl: flags.baseUrl, arch: flags.arch, osStream: flags.osStream }, {}, pins, file, {
    ignoreEnv: true,
  });
  return { settings: layered.settings, buildPin: `${file}:${build.line}` };
}
