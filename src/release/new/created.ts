import { env } from '../../context.js';
import { UsageError } from '../../errors.js';

/** `--created`, else SOURCE_DATE_EPOCH, else the Unix epoch: the same inputs always give the same digest. */
export function createdTime(flag: string | undefined, environment: NodeJS.ProcessEnv = env()): string {
  let date: Date;
  if (flag !== undefined) {
    date = new Date(flag);
    if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(flag))
      throw new UsageError(`--created: ${JSON.stringify(flag)} is not an RFC 3339 time`);
  } else if (environment.SOURCE_DATE_EPOCH) {
    if (!/^\d+$/.test(environment.SOURCE_DATE_EPOCH))
      throw new UsageError(`SOURCE_DATE_EPOCH: ${JSON.stringify(environment.SOURCE_DATE_EPOCH)} is not a number of seconds`);
    date = new Date(Number(environment.SOURCE_DATE_EPOCH) * 1000);
  } else {
    date = new Date(0);
  }
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * oc's default release name: `0.0.1-` and the creation time as `YYYY-MM-DD-HHMMSS` (UTC), a semantic version whose
 * pre-release sorts by time. oc takes the clock; osimage the creation time, so it stays reproducible.
 */
export function defaultReleaseName(created: string): string {
  const t = created.replace(/\.\d+Z$/, 'Z');
  return `0.0.1-${t.slice(0, 10)}-${t.slice(11, 13)}${t.slice(14, 16)}${t.slice(17, 19)}`;
}
