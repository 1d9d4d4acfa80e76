import { extname } from 'node:path';

/**
 * Payload names for an operator's files, as oc gives them: files already starting with `0000_` keep their
 * name, others become `0000_50_<operator>_<file>`; a name already taken gets `_2`, `_3`, … before the
 * extension. `taken` carries the names used so far across operators.
 */
export function payloadName(operator: string, file: string, taken: Set<string>): string {
  const base = file.startsWith('0000_') ? file : `0000_50_${operator}_${file}`;
  let name = base;
  const ext = extname(base);
  const stem = ext ? base.slice(0, -ext.length) : base;
  for (let i = 2; taken.has(name); i++) name = `${stem}_${i}${ext}`;
  taken.add(name);
  return name;
}
