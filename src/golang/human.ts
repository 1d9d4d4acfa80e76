/**
 * The two "for humans" formatters oc's `release info --size` table uses: apimachinery's ShortHumanDuration
 * (`3s`, `5m`, `2h`, `40d`, `2y`) for an image's age, and go-units' HumanSize (4 significant digits, decimal
 * units: `1.23MB`, `817kB`, `12B`) for the payload's total.
 */
import { sprintf } from './fmt.js';
import { GoFloat } from './value.js';

/** ShortHumanDuration of a duration in milliseconds; Go truncates each unit toward zero. */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to a second in the future is taken as now (clocks of two machines), more is invalid.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(ms / 3_600_000 / 24 / 365)}y`;
}

const DECIMAL_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];

/** HumanSize: the size divided by 1000 until below 1000 (or out of units), then `%.4g` and the unit. */
export function humanSize(bytes: number): string {
  let size = bytes;
  let i = 0;
  while (size >= 1000 && i < DECIMAL_UNITS.length - 1) {
    size /= 1000;
    i++;
  }
  return sprintf('%.4g%s', [new GoFloat(size), DECIMAL_UNITS[i]]);
}
