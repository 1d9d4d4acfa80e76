/**
 * The one rule for a boolean environment variable (`OSIMAGE_NO_CACHE`, `OSIMAGE_NO_CODE_CACHE`, `OSIMAGE_DEBUG`,
 * `NO_COLOR`, `FORCE_COLOR`): set to anything but empty, `0` or `false` (any case) means on. Imports nothing, so
 * the launcher (src/launcher/) can use it before the CLI loads.
 */
export function envFlag(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  return v !== '' && v !== '0' && v !== 'false';
}
