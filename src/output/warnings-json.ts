/** Warnings in `-o json` objects: the lines stderr carries, each with the code a script can match on (null when it has none). */
import type { Warning } from '../errors.js';

export interface WarningJson {
  code: string | null;
  message: string;
}

export function warningsJson(warnings: ReadonlyArray<Warning | string>): WarningJson[] {
  return warnings.map((w) => (typeof w === 'string' ? { code: null, message: w } : { code: w.code, message: w.message }));
}
