/**
 * `release info -o FORMAT`: oc's formats and its texts. `json`, `name`, `pullspec`, `digest`, and the template
 * printers of k8s.io/cli-runtime: `jsonpath=`, `jsonpath-as-json=`, `jsonpath-file=`, `go-template=`,
 * `go-template-file=`, `template=`, `templatefile=` (the template after `=`, or in `--template`). The format name
 * and the template are checked here, before any network; the printers (src/golang/jsonpath.ts, template.ts) are loaded
 * only when such a format is given.
 */
import { UsageError, describe } from '../errors.js';

const PLAIN = ['json', 'pullspec', 'digest', 'name'] as const;
const GO_TEMPLATE = ['go-template', 'go-template-file', 'template', 'templatefile'] as const;
const JSONPATH = ['jsonpath', 'jsonpath-as-json', 'jsonpath-file'] as const;
/** In oc's order (its message lists them so). */
export const OUTPUT_FORMATS: readonly string[] = [...PLAIN, ...GO_TEMPLATE, ...JSONPATH];

export type PlainFormat = (typeof PLAIN)[number];

export interface TemplateFormat {
  kind: 'jsonpath' | 'go-template';
  /** The template text (a file's content for the -file formats), as oc quotes it in its errors. */
  template: string;
  /** `-o jsonpath-as-json`. */
  asJson: boolean;
  /** The parsed template, opaque here. */
  parsed: unknown;
}

const onlySupports = () => `--output only supports ${OUTPUT_FORMATS.join(', ')}`;

/** `FORMAT=TEMPLATE` split as oc's printer flags split it, or `--template` when given. */
function splitTemplate(value: string, formats: readonly string[], templateFlag: string): [string, string] {
  if (templateFlag !== '') return [value, templateFlag];
  const f = formats.find((name) => value.startsWith(`${name}=`));
  return f ? [f, value.slice(f.length + 1)] : [value, ''];
}

/** A template file is a few lines; a bigger one (`/dev/zero`, a wrong path) is refused rather than read into memory. */
export const MAX_TEMPLATE_BYTES = 1024 * 1024;

async function readTemplateFile(file: string): Promise<string> {
  const { open } = await import('node:fs/promises');
  try {
    // Read as a stream of chunks (a FIFO such as `<(echo …)` works as in oc), stopping past the bound.
    const handle = await open(file, 'r');
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for (;;) {
        const { bytesRead, buffer } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, null);
        if (bytesRead === 0) break;
        size += bytesRead;
        if (size > MAX_TEMPLATE_BYTES) {
          throw new UsageError(`error reading --template ${file}, larger than ${MAX_TEMPLATE_BYTES / (1024 * 1024)} MiB: not a template`);
        }
        chunks.push(buffer.subarray(0, bytesRead));
      }
      return Buffer.concat(chunks).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? `open ${file}: no such file or directory`
        : code === 'EACCES'
          ? `open ${file}: permission denied`
          : code === 'EISDIR'
            ? `read ${file}: is a directory`
            : `open ${file}: ${describe(err)}`;
    throw new UsageError(`error reading --template ${file}, ${why}`);
  }
}

/**
 * The -o value checked and its template parsed, with oc's messages as usage errors (exit 2):
 * `--output only supports …`, `template format specified but no template given`,
 * `error parsing jsonpath {.a, unclosed action`. Undefined for the default view (`-o ''` or no -o).
 */
export async function parseOutputFormat(value: string | undefined, templateFlag = ''): Promise<PlainFormat | TemplateFormat | undefined> {
  if (value === undefined || value === '') return undefined;
  const name = value.split('=')[0]!;
  if (!OUTPUT_FORMATS.includes(name)) throw new UsageError(onlySupports());
  if ((PLAIN as readonly string[]).includes(name)) return name as PlainFormat;
  for (const [kind, formats] of [
    ['jsonpath', JSONPATH],
    ['go-template', GO_TEMPLATE],
  ] as const) {
    const [format, text] = splitTemplate(value, formats, templateFlag);
    if (!(formats as readonly string[]).includes(format)) continue;
    if (text === '') throw new UsageError('template format specified but no template given');
    const template = format.endsWith('-file') || format === 'templatefile' ? await readTemplateFile(text) : text;
    return { kind, template, asJson: format === 'jsonpath-as-json', parsed: await parse(kind, template) };
  }
  throw new UsageError(`output mode only supports ${OUTPUT_FORMATS.join(', ')}`);
}

async function parse(kind: TemplateFormat['kind'], template: string): Promise<unknown> {
  if (kind === 'jsonpath') {
    const jp = await import('../golang/jsonpath.js');
    try {
      return jp.parseJsonPath(template);
    } catch (err) {
      if (err instanceof jp.JsonPathSyntaxError) throw new UsageError(`error parsing jsonpath ${template}, ${err.message}`);
      throw err;
    }
  }
  const gt = await import('../golang/template.js');
  try {
    return gt.parseGoTemplate(template);
  } catch (err) {
    if (err instanceof gt.GoTemplateSyntaxError) throw new UsageError(`error parsing template ${template}, ${err.message}`);
    throw err;
  }
}

/** What a template printed: stdout, and the error oc reports after it (exit 1), if any. */
export interface TemplateOutput {
  out: string;
  error?: string;
}

/**
 * Run the template over the `-o json` object as oc does: the object goes through JSON first (oc marshals, then
 * its printer decodes). A jsonpath failure prints nothing but the error; a go-template failure prints what ran,
 * then oc's debugging text, on stdout.
 */
export async function printTemplate(format: TemplateFormat, object: unknown, options: TemplateRunOptions = {}): Promise<TemplateOutput> {
  try {
    return await runTemplate(format, object, options);
  } catch (err) {
    // Data nested thousands deep (a hostile image) overflows the printers' recursion: one line, not a stack trace.
    if (!(err instanceof RangeError && /call stack/i.test(err.message))) throw err;
    const { goQuote } = await import('../golang/value.js');
    const what = format.kind === 'jsonpath' ? 'jsonpath' : 'template';
    return { out: '', error: `error executing ${what} ${goQuote(format.template)}: the data is nested too deeply to print` };
  }
}

export interface TemplateRunOptions {
  allowMissingKeys?: boolean;
  /**
   * Where output goes as it is made (stdout): a template may print far more than fits in memory (`{{.}}` fifty
   * thousand times), so it is never built whole. `out` is then empty, or only what is left.
   */
  write?: (chunk: string) => void;
}

async function runTemplate(
  format: TemplateFormat,
  object: unknown,
  { allowMissingKeys = true, write }: TemplateRunOptions,
): Promise<TemplateOutput> {
  const raw = JSON.stringify(object);
  const data: unknown = JSON.parse(raw);
  const { goQuote } = await import('../golang/value.js');
  if (format.kind === 'jsonpath') {
    const jp = await import('../golang/jsonpath.js');
    try {
      return { out: jp.executeJsonPath(format.parsed as never, data, { asJson: format.asJson, allowMissingKeys, sink: write }) };
    } catch (err) {
      if (!(err instanceof jp.JsonPathExecError)) throw err;
      return { out: '', error: `error executing jsonpath ${goQuote(format.template)}: Error executing template: ${err.message}` };
    }
  }
  const gt = await import('../golang/template.js');
  const r = gt.executeGoTemplate(format.template, format.parsed as never, data, { missingKeyError: !allowMissingKeys, sink: write });
  if (!r.error) return { out: r.out };
  const { goJson } = await import('../golang/json.js');
  const { goPrint } = await import('../golang/fmt.js');
  const debug =
    `Error executing template: ${r.error.message}. Printing more information for debugging the template:\n` +
    `\ttemplate was:\n\t\t${format.template}\n` +
    `\traw data was:\n\t\t${goJson(data, null)}\n` +
    `\tobject given to template engine was:\n\t\t${goPrint(data, { ints: true })}\n\n`;
  return { out: r.out + debug, error: `error executing template ${goQuote(format.template)}: ${r.error.message}` };
}
