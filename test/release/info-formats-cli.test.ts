/**
 * `osimage release info -o jsonpath=… / go-template=…` end to end: the release image of
 * test/helpers/oci-builder.ts releaseImage() in the real distribution registry (and in an oci: layout), with oc
 * 4.13's output for the same image next to each case. oc's commands were
 *
 *   oc adm release info --insecure REGISTRY/ocp/release:4.13.1 -o FORMAT
 *
 * (`REGISTRY` is the registry's host:port). Differences on purpose: errors found in the -o value or the template
 * are usage errors found before any network (exit 2; oc exits 1 after reading the image), and a jsonpath error is
 * one line (oc follows it with a dump of the object).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { baseEntries, entry, image, layout, pushBuilt, releaseEntries, releaseImage } from '../helpers/oci-builder.js';
import { useRegistry } from '../helpers/registry.js';

const registry = useRegistry();
let ref: string;
let dir: string;
beforeAll(async () => {
  ref = `${registry().host}/ocp/release:4.13.1`;
  await pushBuilt(ref, await releaseImage());
  dir = await mkdtemp(join(tmpdir(), 'osimage-formats-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const info = (...args: string[]) => osimage(['release', 'info', '--insecure', ref, ...args]);

describe('templates over the -o json object, as oc prints them', () => {
  test("the script's question: which RHCOS build", async () => {
    // oc adm release info --insecure REGISTRY/ocp/release:4.13.1 -o jsonpath='{.displayVersions.machine-os.Version}'
    // → 413.92.202305231734-0 (no newline), exit 0
    const r = await info('-o', 'jsonpath={.displayVersions.machine-os.Version}');
    expect(r).toMatchObject({ stdout: '413.92.202305231734-0', stderr: '', exitCode: 0 });
  });

  test('numbers: Go %v of a float64 for jsonpath, an int64 for go-template; -o=FORMAT as pflag takes it', async () => {
    // oc … -o jsonpath='{.config.size}' → 1022; oc … -o=go-template='{{.config.size}}' → 1022
    expect((await info('-o', 'jsonpath={.config.size}')).stdout).toBe('1022');
    expect((await info('-o=go-template={{.config.size}}')).stdout).toBe('1022');
    expect((await info('-o=jsonpath={.displayVersions.machine-os.Version}')).stdout).toBe('413.92.202305231734-0');
  });

  test('range, literal text, filters', async () => {
    // oc … -o 'jsonpath={range .references.spec.tags[*]}{.name}{"\t"}{.from.name}{"\n"}{end}'
    const r = await info('-o', 'jsonpath={range .references.spec.tags[*]}{.name}{"\\t"}{.from.name}{"\\n"}{end}');
    expect(r.stdout).toBe(
      [
        `cli\tquay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'a'.repeat(64)}`,
        `machine-os-content\tquay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'b'.repeat(64)}`,
      ].join('\n'),
    );
    // oc … -o 'jsonpath={.references.spec.tags[?(@.name=="machine-os-content")].from.name}'
    const f = await info('-o', 'jsonpath={.references.spec.tags[?(@.name=="machine-os-content")].from.name}');
    expect(f.stdout).toBe(`quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'b'.repeat(64)}`);
    // oc … -o 'jsonpath={.metadata.previous} {.images} {.nope}' → ["4.13.0","4.12.17","4.12.16"] <nil> (a missing key: nothing)
    expect((await info('-o', 'jsonpath={.metadata.previous} {.images} {.nope}')).stdout).toBe('["4.13.0","4.12.17","4.12.16"] <nil> ');
  });

  test('jsonpath-as-json, and the template from --template or a file', async () => {
    // oc … -o 'jsonpath-as-json={.references.spec.tags[*].name}' → [\n    "cli",\n    "machine-os-content"\n]\n
    const r = await info('-o', 'jsonpath-as-json={.references.spec.tags[*].name}');
    expect(r.stdout).toBe('[\n    "cli",\n    "machine-os-content"\n]');
    // oc … -o jsonpath --template '{.image}'
    expect((await info('-o', 'jsonpath', '--template', '{.references.metadata.name}')).stdout).toBe('4.13.1');
    const jpFile = join(dir, 't.jsonpath');
    await writeFile(jpFile, '{.image}{"\\n"}{.references.metadata.name}');
    // oc … -o jsonpath-file=FILE → REGISTRY/ocp/release:4.13.1\n4.13.1
    expect((await info('-o', `jsonpath-file=${jpFile}`)).stdout).toBe(`${ref}\n4.13.1`);
    const tmplFile = join(dir, 't.tmpl');
    await writeFile(tmplFile, '{{.references.metadata.name}}\n');
    // oc … -o templatefile=FILE (and go-template-file=FILE) → 4.13.1\n
    expect((await info('-o', `templatefile=${tmplFile}`)).stdout).toBe('4.13.1');
    expect((await info('-o', `go-template-file=${tmplFile}`)).stdout).toBe('4.13.1');
  });

  test('go-template: Go maps, range, template=', async () => {
    // oc … -o 'go-template={{index .displayVersions "machine-os"}}'
    const r = await info('-o', 'go-template={{index .displayVersions "machine-os"}}');
    expect(r.stdout).toBe('map[DisplayName:Red Hat Enterprise Linux CoreOS Version:413.92.202305231734-0]');
    // oc … -o 'go-template={{range .references.spec.tags}}{{.name}}{{"\n"}}{{end}}' → cli\nmachine-os-content\n
    expect((await info('-o', 'go-template={{range .references.spec.tags}}{{.name}}{{"\\n"}}{{end}}')).stdout).toBe(
      'cli\nmachine-os-content',
    );
    // oc … -o 'template={{.metadata.version}}' → 4.13.1
    expect((await info('-o', 'template={{.metadata.version}}')).stdout).toBe('4.13.1');
  });

  test('over an oci: layout too', async () => {
    const ociRef = await layout(dir, 'layout', [entry(await releaseImage(), '4.13.1')], '4.13.1');
    const r = await osimage(['release', 'info', ociRef, '-o', 'jsonpath={.displayVersions.machine-os.Version}']);
    expect(r).toMatchObject({ stdout: '413.92.202305231734-0', exitCode: 0 });
  });
});

describe("the text view's release metadata values, printed with the same Go %v", () => {
  test('numbers from JSON are float64, maps sorted, null <nil>', async () => {
    const metadata = { url: 'https://x', size: 67939151, ratio: 0.5, nested: { b: 1, a: [1, 'x', null] } };
    const md = JSON.stringify({ kind: 'cincinnati-metadata-v0', version: '4.13.1', previous: [], metadata });
    const img = await image([
      { entries: baseEntries() },
      { entries: [...releaseEntries({ metadata: false }), { name: 'release-manifests/release-metadata', data: md, mode: 0o444 }] },
    ]);
    const mdRef = `${registry().host}/ocp/release:md`;
    await pushBuilt(mdRef, img);
    const r = await osimage(['release', 'info', '--insecure', mdRef]);
    // oc adm release info --insecure REGISTRY/ocp/release:md (the Release Metadata section)
    expect(r.stdout).toContain(
      [
        'Release Metadata:',
        '  Version:  4.13.1',
        '  Upgrades: <none>',
        '  Metadata:',
        '    nested: map[a:[1 x <nil>] b:1]',
        '    ratio:  0.5',
        '    size:   6.7939151e+07',
        '    url:    https://x',
        '',
      ].join('\n'),
    );
  });
});

describe("errors in oc's words", () => {
  test.each([
    // oc … -o yaml (oc 4.13 has no yaml here either)
    [
      ['-o', 'yaml'],
      '--output only supports json, pullspec, digest, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file',
    ],
    // oc … -o jsonpath
    [['-o', 'jsonpath'], 'template format specified but no template given'],
    // oc … -o 'jsonpath={.a'
    [['-o', 'jsonpath={.a'], 'error parsing jsonpath {.a, unclosed action'],
    // oc … -o 'go-template={{.a'
    [['-o', 'go-template={{.a'], 'error parsing template {{.a, template: output:1: unclosed action'],
    // oc … -o jsonpath-file=/nonexistent
    [['-o', 'jsonpath-file=/nonexistent/t'], 'error reading --template /nonexistent/t, open /nonexistent/t: no such file or directory'],
    // Not oc's (oc reads /dev/zero until memory runs out): a template file is bounded to 1 MiB.
    [['-o', 'jsonpath-file=/dev/zero'], 'error reading --template /dev/zero, larger than 1 MiB: not a template'],
    // oc … -o 'jsonpath={.x}' --template '{.y}'
    [
      ['-o', 'jsonpath={.x}', '--template', '{.y}'],
      'output mode only supports json, pullspec, digest, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file',
    ],
    // oc … --image-for cli -o 'jsonpath={.x}'
    [['--image-for', 'cli', '-o', 'jsonpath={.x}'], '--output and --image-for may not both be specified'],
  ])('%j: a usage error before any network', async (args, message) => {
    // A registry that is not there: the error must come before any request.
    const r = await osimage(['release', 'info', '--insecure', '127.0.0.1:1/ocp/release:4.13.1', ...args]);
    expect(r).toMatchObject({ stdout: '', stderr: `error: ${message}`, exitCode: 2 });
  });

  test('a template file may be a pipe (process substitution), read to its end', async () => {
    const { spawn } = await import('node:child_process');
    const fifo = join(dir, 'template.fifo');
    await new Promise<void>((done, fail) => spawn('mkfifo', [fifo]).on('exit', (c) => (c === 0 ? done() : fail(new Error(`mkfifo ${c}`)))));
    const writer = writeFile(fifo, '{.displayVersions.machine-os.Version}');
    const r = await info('-o', `jsonpath-file=${fifo}`);
    await writer;
    expect(r).toMatchObject({ stdout: '413.92.202305231734-0', exitCode: 0 });
  });

  test('a template that fails on the data exits 1 with oc’s first line', async () => {
    // oc … -o 'jsonpath={.metadata.previous[7]}' → exit 1, stderr (then a dump of the object):
    const r = await info('-o', 'jsonpath={.metadata.previous[7]}');
    expect(r).toMatchObject({
      stdout: '',
      stderr:
        'error: error executing jsonpath "{.metadata.previous[7]}": Error executing template: array index out of bounds: index 7, length 3',
      exitCode: 1,
    });
    // oc … -o 'go-template={{index .references.spec.tags 5}}' → exit 1; stdout: oc's debugging text; stderr:
    const g = await info('-o', 'go-template={{index .references.spec.tags 5}}');
    expect(g.exitCode).toBe(1);
    expect(g.stdout).toMatch(
      /^Error executing template: template: output:1:2: executing "output" at <index \.references\.spec\.tags 5>: error calling index: index out of range: 5\. Printing more information for debugging the template:\n\ttemplate was:\n\t\t\{\{index \.references\.spec\.tags 5\}\}\n\traw data was:\n\t\t\{"image":/,
    );
    expect(g.stderr).toBe(
      'error: error executing template "{{index .references.spec.tags 5}}": template: output:1:2: executing "output" at <index .references.spec.tags 5>: error calling index: index out of range: 5',
    );
  });
});

describe('--allow-missing-template-keys (oc: default true)', () => {
  test('default and =true: a missing key prints nothing (jsonpath) or <no value> (go-template), exit 0', async () => {
    for (const flag of [[], ['--allow-missing-template-keys'], ['--allow-missing-template-keys=true']]) {
      expect(await info('-o', 'jsonpath={.foo}', ...flag)).toMatchObject({ stdout: '', stderr: '', exitCode: 0 });
      expect(await info('-o', 'go-template={{.foo}}', ...flag)).toMatchObject({ stdout: '<no value>', exitCode: 0 });
    }
  });

  test('=false makes a missing key an error, in oc words', async () => {
    // oc adm release info --insecure REGISTRY/ocp/release:4.13.1 -o jsonpath='{.foo}' --allow-missing-template-keys=false
    // → error: error executing jsonpath "{.foo}": Error executing template: foo is not found. Printing more information…
    //   (oc then dumps the object; osimage stops at oc's first sentence), exit 1
    const jp = await info('-o', 'jsonpath={.foo}', '--allow-missing-template-keys=false');
    expect(jp.stderr).toBe('error: error executing jsonpath "{.foo}": Error executing template: foo is not found');
    expect(jp.exitCode).toBe(1);
    // oc adm release info --insecure REGISTRY/ocp/release:4.13.1 -o go-template='{{.foo}}' --allow-missing-template-keys=false
    // → stderr: error: error executing template "{{.foo}}": template: output:1:2: executing "output" at <.foo>: map has no
    //   entry for key "foo"; stdout: oc's debugging text; exit 1
    const gt = await info('-o', 'go-template={{.foo}}', '--allow-missing-template-keys=false');
    expect(gt.stderr).toBe(
      'error: error executing template "{{.foo}}": template: output:1:2: executing "output" at <.foo>: map has no entry for key "foo"',
    );
    expect(gt.stdout).toMatch(/^Error executing template: template: output:1:2: executing "output" at <\.foo>: map has no entry/);
    expect(gt.exitCode).toBe(1);
    // The last value wins, as in pflag.
    expect(await info('-o', 'jsonpath={.foo}', '--allow-missing-template-keys=false', '--allow-missing-template-keys')).toMatchObject({
      exitCode: 0,
    });
  });
});
