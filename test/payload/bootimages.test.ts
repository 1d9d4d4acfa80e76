/**
 * The coreos-bootimages ConfigMap as the installer writes it: data.stream (the default stream) and, with
 * OS streams, data.streams (name → stream); flags parsed; marketplace merged; reruns that change only
 * metadata leave the file alone. The streams come from the shared generator (src/stream/), read from the
 * sample release browser over HTTP.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  bootimagesConfigMap,
  bootimagesUpdate,
  defaultOsStream,
  describeStream,
  mergeMarketplace,
  nameFlagsProblem,
  nameFor,
  parseEra,
  parseMarketplaceFlags,
  parseNameFlags,
  parseOsStreamFlags,
  readBootimages,
  writeBootimages,
} from '../../src/payload/bootimages.js';
import { collectStream } from '../../src/stream/collect.js';
import { goStreamJson } from '../../src/stream/format.js';
import { generateStream } from '../../src/stream/generate.js';
import type { StreamJson } from '../../src/stream/types.js';
import { SAMPLE_RELEASES } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { cleanup, read, tempDir } from './helpers.js';

let server: FileServer;
beforeAll(async () => {
  server = await serveFolder(SAMPLE_RELEASES);
});
afterAll(() => server.close());
afterEach(cleanup);

async function streamOf(channel: string, name: string, generator = 'osimage test', build = ''): Promise<StreamJson> {
  const c = await collectStream({ baseUrl: server.url, channel, build });
  return generateStream(c.inputs, { name, generator, ...(c.buildsTimestamp ? { buildsTimestamp: c.buildsTimestamp } : {}) }).stream;
}

describe('the coreos-bootimages ConfigMap', () => {
  it('one stream: a v1 ConfigMap in the MCO namespace, releaseVersion 0.0.1-snapshot, data.stream as the installer formats it', async () => {
    const s = await streamOf('rhcos-4.12', 'rhcos-4.12');
    const text = bootimagesConfigMap({ stream: s });
    const cm = parse(text);
    expect(cm).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'coreos-bootimages', namespace: 'openshift-machine-config-operator' },
      data: { releaseVersion: '0.0.1-snapshot' },
    });
    expect(Object.keys(cm.data)).toEqual(['releaseVersion', 'stream']);
    expect(cm.metadata.annotations['include.release.openshift.io/self-managed-high-availability']).toBe('true');
    // Today's installer: json.MarshalIndent of the stream, no final newline, so a `|-` block.
    expect(cm.data.stream).toBe(goStreamJson(s, { layout: 'indented' }));
    expect(text).toContain('\n  stream: |-\n    {\n      "stream": "rhcos-4.12",\n');
    expect(Object.keys(JSON.parse(cm.data.stream).architectures)).toEqual(['aarch64', 'x86_64']);
    // unquoted, so oc's version substitution finds it
    expect(text).toContain('\n  releaseVersion: 0.0.1-snapshot\n');
    // sigs.k8s.io/yaml sorts every mapping's keys
    expect(text.split('\n').filter((l) => /^\S/.test(l))).toEqual(['apiVersion: v1', 'data:', 'kind: ConfigMap', 'metadata:']);
  });

  it('each era writes data.stream as its installer did; the reader tells the eras apart', async () => {
    const s = await streamOf('rhcos-4.12', 'rhcos-4.12');
    const old = bootimagesConfigMap({ stream: s }, '2021');
    expect(parse(old).data.stream).toBe(goStreamJson(s, { layout: 'file' }));
    expect(old).toContain('\n  stream: |\n    {\n');
    expect(old).toContain('\n  creationTimestamp: null\n');
    const compact = bootimagesConfigMap({ stream: s }, '2025-08');
    expect(parse(compact).data.stream).toBe(goStreamJson(s, { layout: 'compact' }));
    expect(compact).toContain(`\n  stream: '{"stream":"rhcos-4.12","metadata":{`);
    expect(bootimagesConfigMap({ stream: s }, '2025-11')).toBe(compact.replace('  creationTimestamp: null\n', ''));
    for (const era of ['2021', '2025-08', '2025-11', '2026'] as const) {
      expect(readBootimages(bootimagesConfigMap({ stream: s }, era), 'f').era).toBe(era);
    }
    expect(() => bootimagesConfigMap({ stream: s, streams: { 'rhel-9': s } }, '2021')).toThrow(/data.streams .* only in the 2026 form/);
    expect(() => readBootimages('data: {}', 'cm.yaml')).toThrow('cm.yaml: not a coreos-bootimages ConfigMap: no data.stream');
    expect(() => readBootimages('data: {stream: "{"}', 'cm.yaml')).toThrow(
      /^cm.yaml: not a coreos-bootimages ConfigMap: data.stream is not JSON/,
    );
    expect(parseEra('2025-11')).toBe('2025-11');
    expect(() => parseEra('2024')).toThrow('--era 2024: expected auto or one of 2021, 2025-08, 2025-11, 2026');
  });

  it('two streams: data.streams holds both (names sorted, 2-space JSON), data.stream the default', async () => {
    const r9 = await streamOf('4.18-9.4/builds', 'rhel-9');
    const r10 = await streamOf('rhel-10.2/builds', 'rhel-10');
    const cm = parse(bootimagesConfigMap({ stream: r9, streams: { 'rhel-9': r9, 'rhel-10': r10 } }));
    expect(cm.data.stream).toBe(goStreamJson(r9, { layout: 'indented' }));
    expect(Object.keys(JSON.parse(cm.data.streams))).toEqual(['rhel-10', 'rhel-9']);
    const each = (x: StreamJson) => JSON.parse(goStreamJson(x, { layout: 'compact' })) as unknown;
    expect(JSON.parse(cm.data.streams)).toEqual({ 'rhel-10': each(r10), 'rhel-9': each(r9) });
    // One MarshalIndent of the map: each stream one level deeper, no final newline.
    expect(cm.data.streams).toBe(JSON.stringify({ 'rhel-10': each(r10), 'rhel-9': each(r9) }, null, 2));
    expect(describeStream(r10)).toBe('build 10.2.20260217-0, aarch64, x86_64');
  });

  it('is left alone when only the metadata would change (one or two streams); rewritten when a build changes', async () => {
    const old = await streamOf('rhel-10.2/builds', 'rhel-10', 'osimage 0.1.0', '10.2.20260212-0');
    const r9 = await streamOf('4.18-9.4/builds', 'rhel-9', 'osimage 0.1.0');
    const first = bootimagesConfigMap({ stream: r9, streams: { 'rhel-9': r9, 'rhel-10': old } });
    const bump = (s: StreamJson) => ({ ...s, metadata: { 'last-modified': '2030-01-01T00:00:00Z', generator: 'osimage 9.9.9' } });
    expect(bootimagesUpdate(first, { stream: bump(r9), streams: { 'rhel-9': bump(r9), 'rhel-10': bump(old) } })).toBeUndefined();
    const one = bootimagesConfigMap({ stream: old });
    expect(bootimagesUpdate(one, { stream: bump(old) })).toBeUndefined();
    const newer = await streamOf('rhel-10.2/builds', 'rhel-10');
    const next = { stream: r9, streams: { 'rhel-9': r9, 'rhel-10': newer } };
    expect(bootimagesUpdate(first, next)).toBe(bootimagesConfigMap(next));
    expect(bootimagesUpdate(undefined, next)).toBe(bootimagesConfigMap(next));
    expect(bootimagesUpdate('not yaml: [', next)).toBe(bootimagesConfigMap(next));
    // One stream → two: data.streams appears.
    expect(bootimagesUpdate(bootimagesConfigMap({ stream: r9 }), next)).toBe(bootimagesConfigMap(next));
  });

  it('writeBootimages writes once, then leaves the file alone; refuses a bad file name or folder', async () => {
    const dir = await tempDir();
    const b = { stream: await streamOf('rhcos-4.12', 'rhcos-4.12') };
    expect(await writeBootimages(dir, 'coreos-bootimages.yaml', b)).toEqual({ path: join(dir, 'coreos-bootimages.yaml'), written: true });
    expect(await read(join(dir, 'coreos-bootimages.yaml'))).toBe(bootimagesConfigMap(b));
    expect((await writeBootimages(dir, 'coreos-bootimages.yaml', b)).written).toBe(false);
    await expect(writeBootimages(dir, '../x.yaml', b)).rejects.toThrow(/--file must be a file name inside --dir/);
    await expect(writeBootimages(join(dir, 'nope'), 'x.yaml', b)).rejects.toThrow(/nope: no such directory/);
  });
});

describe('flags and the default stream', () => {
  it('--os-stream NAME=CHANNEL[@BUILD]', () => {
    expect(parseOsStreamFlags(['rhel-9=4.18-9.4/builds', 'rhel-10=rhel-10.2/builds@10.2.20260212-0'])).toEqual([
      { name: 'rhel-9', channel: '4.18-9.4/builds', build: '' },
      { name: 'rhel-10', channel: 'rhel-10.2/builds', build: '10.2.20260212-0' },
    ]);
    expect(() => parseOsStreamFlags(['rhel-9'])).toThrow(/expected NAME=CHANNEL\[@BUILD\]/);
    expect(() => parseOsStreamFlags(['rhel-9=a', 'rhel-9=b'])).toThrow(/rhel-9 given twice/);
    expect(() => parseOsStreamFlags(['RHEL 9=a'])).toThrow(/--os-stream RHEL 9=a: invalid OS stream name/);
    expect(() => parseOsStreamFlags(['rhel-9='])).toThrow(/the channel is empty/);
  });

  it('--marketplace [NAME=]FILE', () => {
    expect(parseMarketplaceFlags(['m.json', 'rhel-10=x/m.json'])).toEqual([
      { name: undefined, file: 'm.json' },
      { name: 'rhel-10', file: 'x/m.json' },
    ]);
    expect(() => parseMarketplaceFlags(['rhel-9='])).toThrow(/the file is empty/);
  });

  it('--name [OS_STREAM=]NAME: the one stream, or each OS stream; checked against the streams given', () => {
    const names = parseNameFlags(['rhel-9=rhcos-4.21', 'rhel-10=rhcos-4.22']);
    expect(names.map((n) => [n.osStream, n.name])).toEqual([
      ['rhel-9', 'rhcos-4.21'],
      ['rhel-10', 'rhcos-4.22'],
    ]);
    expect(nameFlagsProblem(names, ['rhel-9', 'rhel-10'])).toBeUndefined();
    expect(nameFor(names, 'rhel-10', false)).toBe('rhcos-4.22');
    expect(nameFor(names, 'rhel-11', false)).toBeUndefined();
    const plain = parseNameFlags(['rhcos-4.21']);
    expect(nameFor(plain, undefined, true)).toBe('rhcos-4.21');
    expect(nameFor(plain, 'rhel-9', true)).toBe('rhcos-4.21');
    expect(nameFlagsProblem(plain, [])).toBeUndefined();
    expect(nameFlagsProblem(plain, ['rhel-9'])).toBeUndefined();
    expect(nameFlagsProblem(plain, ['rhel-9', 'rhel-10'])).toBe(
      '--name rhcos-4.21: with several --os-stream say which stream it names: --name rhel-10=rhcos-4.21',
    );
    expect(nameFlagsProblem(parseNameFlags(['x', 'rhel-9=y']), ['rhel-9'])).toBe('--name: rhel-9 named twice');
    expect(nameFlagsProblem(parseNameFlags(['rhel-11=x']), ['rhel-9', 'rhel-10'])).toBe(
      '--name rhel-11=x: no --os-stream rhel-11 (streams: rhel-9, rhel-10)',
    );
    expect(nameFlagsProblem(parseNameFlags(['rhel-9=x']), [])).toMatch(/no --os-stream rhel-9 \(give --os-stream NAME=CHANNEL/);
    expect(() => parseNameFlags(['rhel-9='])).toThrow(
      '--name rhel-9=: expected [OS_STREAM=]NAME with a non-empty NAME, e.g. rhel-10=rhcos-4.22',
    );
    expect(() => parseNameFlags(['a', 'b'])).toThrow('--name: the stream named twice');
    expect(() => parseNameFlags(['RHEL 9=x'])).toThrow(/--name RHEL 9=x: invalid OS stream name/);
  });

  it('the default: the only stream, else rhel-9, else an error naming the streams', () => {
    expect(defaultOsStream(['rhel-10'])).toBe('rhel-10');
    expect(defaultOsStream(['rhel-10', 'rhel-9'])).toBe('rhel-9');
    expect(() => defaultOsStream(['rhel-10', 'centos-10'])).toThrow(
      '--os-stream: with several OS streams the default (data.stream) is rhel-9, which is not among rhel-10, centos-10',
    );
  });
});

describe('marketplace', () => {
  const azure = (sku: string) => ({
    azure: { 'no-purchase-plan': { hyperVGen2: { publisher: 'azureopenshift', offer: 'aro4', sku, version: '418.94.20260510' } } },
  });

  it('merges each arch into rhel-coreos-extensions.marketplace; arches the stream lacks are returned', async () => {
    const s = await streamOf('4.18-9.4/builds', 'rhel-9');
    const { stream, skipped } = mergeMarketplace(s, { x86_64: azure('418-v2'), s390x: azure('x') }, 'm.json');
    expect(stream.architectures.x86_64!['rhel-coreos-extensions']!.marketplace).toEqual(azure('418-v2'));
    expect(stream.architectures.aarch64!['rhel-coreos-extensions']?.marketplace).toBeUndefined();
    expect(skipped).toEqual(['s390x']);
    expect(s.architectures.x86_64!['rhel-coreos-extensions']?.marketplace).toBeUndefined(); // the input is not changed
    // The 2025 generator: arches without rhel-coreos-extensions never got them.
    const bare = structuredClone(s);
    delete bare.architectures.x86_64!['rhel-coreos-extensions'];
    const old = mergeMarketplace(bare, { x86_64: azure('418-v2') }, 'm.json', { needsExtensions: true });
    expect(old.noExtensions).toEqual(['x86_64']);
    expect(old.stream.architectures.x86_64!['rhel-coreos-extensions']).toBeUndefined();
    expect(() => mergeMarketplace(s, [1], 'm.json')).toThrow(
      'm.json: a marketplace file must be a JSON object of arch → marketplace images',
    );
  });
});
