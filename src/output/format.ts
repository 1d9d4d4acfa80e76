/** Plain text renderers: tables, key/value blocks, JSON, shell assignments. */
import { escapeControls } from './escape.js';

/** Columns padded to the widest cell; the last column is not padded. Cells come from outside: controls are escaped. */
export function table(given: string[][], gap = '  '): string {
  const rows = given.map((row) => row.map(escapeControls));
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join(gap)
        .trimEnd(),
    )
    .join('\n');
}

/** `Key:  value` lines, aligned; rows whose value is undefined are left out. */
export function keyValues(rows: Array<[string, string | undefined]>): string {
  return table(rows.filter((r): r is [string, string] => r[1] !== undefined).map(([k, v]) => [`${k}:`, v]));
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Quote a value for a POSIX shell only when it needs it. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_.,:/@%+=-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
