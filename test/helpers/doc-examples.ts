/**
 * The examples of README.md and docs/*.md, as test/docs/drift.test.ts runs them (the rule is also written in
 * docs/README.md).
 *
 * - only lines inside ```sh fences of README.md and docs/*.md; a leading `$ ` prompt is dropped;
 * - a line is an example when it starts with `osimage `, optionally after `NAME=value ` assignments;
 * - it is run when it uses only the offline sample: it names `hack/sample`, or an earlier
 *   `export NAME=value …` line of the same block that names `hack/sample` set the environment, or it names
 *   a file an earlier example of the same page made (`cp`/`mkdir` targets; the values of `--write`, `--meta`,
 *   `--dir`, `--out`, `--to`, `--to-file`, `--to-dir`, `--cache-dir`; `oci:`/`oci-archive:` and a `:TAG` are looked through)
 *   and names no registry or URL (a word, not a `TAG=PULLSPEC` mapping, that starts `http(s)://`,
 *   `localhost` or `HOST.DOMAIN/`); and it has no shell syntax the test does not run: `$`, `…`, `<`, `>`,
 *   `|`, `&`, `;`, backquotes;
 * - a trailing `# comment` is dropped; `# exit N` in it is the exit code expected (else 0);
 * - a line ending in `\` continues on the next line (joined as the shell joins it);
 * - `mkdir -p DIR`, `cp FILE FILE` and `cp -r DIR DIR` lines in those blocks are carried out too, so
 *   examples can set up;
 * - a paragraph that is one `code span` alone, right after a block (blank lines between), is a line of real
 *   output of the block's last example: it must be a line of its stdout or stderr, `…` matching anything;
 * - the examples of one file are returned in order: the caller runs them in one folder, one after another.
 */

export interface Example {
  line: number;
  text: string;
  kind: 'osimage' | 'mkdir' | 'cp';
  args: string[];
  env: Record<string, string>;
  exit: number;
  /** The output line shown after the block (see the rule above), for the block's last example. */
  shows?: RegExp;
}

/** Split a command line into words: plain words, '…' and "…" (no expansion: `$` never reaches here). */
export function words(s: string): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  let quote = '';
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = '';
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      cur ??= '';
    } else if (/\s/.test(ch)) {
      if (cur !== undefined) out.push(cur);
      cur = undefined;
    } else cur = (cur ?? '') + ch;
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

/** A shown output line as a pattern for a whole line: `…` matches anything. */
const outputLine = (shown: string) =>
  new RegExp(
    `^${shown
      .split('…')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'm',
  );

const SHELL = /[$…<>|&;`\\]/;
/** A word naming a registry or a URL: not offline. */
const REMOTE = /^(https?:\/\/|localhost\b|127\.0\.0\.1\b|[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?\/)/;
/** Options whose value is a file or folder an example makes. */
const MAKES = new Set(['--write', '--meta', '--dir', '--out', '--to', '--to-file', '--to-dir', '--cache-dir']);
/** The file a word names, looking through `oci:`/`oci-archive:` and a `:TAG`. */
const fileOf = (w: string) => w.replace(/^oci(-archive)?:/, '').replace(/:[\w.-]+$/, '');
const ASSIGN = /^[A-Z_][A-Z0-9_]*=\S*$/;

/** The examples of one markdown file, by the rule above. */
export function examples(markdown: string): Example[] {
  const out: Example[] = [];
  let inSh = false;
  let blockStart = 0;
  let blockEnv: Record<string, string> = {};
  let blockSample = false;
  const made = new Set<string>();
  // Continuation lines are joined onto the line they continue (the example keeps its first line's number).
  const lines = markdown.split('\n');
  for (let i = lines.length - 2; i >= 0; i--) {
    if (/\\$/.test(lines[i] as string) && !/^\s*```/.test(lines[i + 1] as string)) {
      lines[i] = `${(lines[i] as string).slice(0, -1)}${(lines[i + 1] as string).trim()}`;
      lines[i + 1] = '';
    }
  }
  let closed: Example | undefined;
  lines.forEach((raw, i) => {
    const shown = /^`([^`]+)`$/.exec(raw.trim());
    if (closed && shown) closed.shows = outputLine(shown[1] as string);
    if (raw.trim() !== '') closed = undefined;
    if (/^\s*```/.test(raw)) {
      if (inSh) closed = out.filter((e) => e.kind === 'osimage').at(-1);
      if (closed && closed.line < blockStart) closed = undefined;
      blockStart = i + 1;
      inSh = !inSh && /^\s*```sh\s*$/.test(raw);
      blockEnv = {};
      blockSample = false;
      return;
    }
    if (!inSh) return;
    let text = raw.trim().replace(/^\$ /, '');
    const comment = /\s#\s(.*)$/.exec(text);
    const exit = Number(/\bexit (\d)\b/.exec(comment?.[1] ?? '')?.[1] ?? 0);
    if (comment) text = text.slice(0, comment.index).trim();
    if (SHELL.test(text)) return;
    const w = words(text);
    if (w[0] === 'export' && w.length > 1 && w.slice(1).every((x) => ASSIGN.test(x))) {
      for (const a of w.slice(1)) blockEnv[a.slice(0, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
      blockSample ||= text.includes('hack/sample');
      return;
    }
    const env = { ...blockEnv };
    while (w.length > 0 && ASSIGN.test(w[0] as string)) {
      const a = w.shift() as string;
      env[a.slice(0, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
    }
    const local = w.some((x) => made.has(fileOf(x))) && !w.some((x) => !x.includes('=') && REMOTE.test(x));
    const sample = blockSample || text.includes('hack/sample') || local;
    if (w[0] === 'osimage' && sample) {
      out.push({ line: i + 1, text, kind: 'osimage', args: w.slice(1), env, exit });
      w.forEach((x, k) => {
        if (MAKES.has(x) && w[k + 1]) made.add(w[k + 1] as string);
      });
    } else if (w[0] === 'mkdir' && w[1] === '-p') {
      out.push({ line: i + 1, text, kind: 'mkdir', args: w.slice(2), env, exit });
      for (const d of w.slice(2)) made.add(d);
    } else if (w[0] === 'cp' && (w.length === 3 || (w[1] === '-r' && w.length === 4))) {
      out.push({ line: i + 1, text, kind: 'cp', args: w.slice(-2), env, exit });
      made.add(w.at(-1) as string);
    }
  });
  return out;
}
