/**
 * `-o json` of payload write, payload render and payload bootimages (the shapes of docs/payload.md): stdout is
 * one JSON document; an unknown -o value is a usage error (exit 2) that writes nothing.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { osimage, SAMPLE_RELEASES } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { CM_FILE, cleanup, snapshot, tempDir, U, V } from './helpers.js';

let server: FileServer;
beforeAll(async () => {
  server = await serveFolder(SAMPLE_RELEASES);
});
afterAll(() => server.close());
afterEach(cleanup);

const parsed = (stdout: string): Record<string, unknown> => JSON.parse(stdout) as Record<string, unknown>;
const INVALID = (v: string) => `error: option '-o, --output <format>' argument '${v}' is invalid. Allowed choices are text, json.`;

describe('payload write -o json', () => {
  const KEYS = ['generation', 'osStream', 'build', 'changed', 'imageReferences', 'configMap', 'tags', 'keys', 'buildVersions', 'warnings'];

  it('a 2019 folder with --os-image: each tag and key with its value before; then unchanged', async () => {
    const dir = await tempDir('mco-2019');
    const r = await osimage(['payload', 'write', '--dir', dir, '--os-image', U, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const j = parsed(r.stdout);
    expect(Object.keys(j)).toEqual(KEYS);
    expect(j).toMatchObject({
      generation: 'legacy',
      osStream: null,
      build: null,
      changed: true,
      imageReferences: { path: join(dir, 'image-references'), action: 'updated' },
      configMap: { path: expect.stringMatching(/osimageurl\.yaml$/), action: 'updated' },
      tags: [{ tag: 'machine-os-content', container: 'oscontainer', pullspec: U, source: 'flag', action: 'updated', previous: V }],
      keys: [{ key: 'osImageURL', tag: 'machine-os-content', value: U }],
      warnings: [],
    });
    const again = parsed((await osimage(['payload', 'write', '--dir', dir, '--os-image', U, '-o', 'json'])).stdout);
    expect(again).toMatchObject({ changed: false, imageReferences: { action: 'unchanged' }, tags: [{ action: 'unchanged', previous: U }] });
  });

  it('a resolved build names the build; the build notes stay on stderr', async () => {
    const dir = await tempDir();
    const r = await osimage(['payload', 'write', '--dir', dir, '--base-url', server.url, '--channel', 'rhcos-4.12', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('OS container of build 412.86.202301311551-0');
    const j = parsed(r.stdout);
    expect(j).toMatchObject({ build: '412.86.202301311551-0', changed: true, configMap: { path: join(dir, CM_FILE), action: 'created' } });
    expect((j.tags as Array<{ source: string }>).every((t) => t.source === 'build')).toBe(true);
  });

  it('-o yaml is a usage error and writes nothing', async () => {
    const dir = await tempDir('mco-2019');
    const before = await snapshot(dir);
    const r = await osimage(['payload', 'write', '--dir', dir, '--os-image', U, '-o', 'yaml']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(INVALID('yaml'));
    expect(await snapshot(dir)).toEqual(before);
  });
});

describe('payload render -o json', () => {
  it('to stdout: a v1 List of the MachineConfigs', async () => {
    const r = await osimage(['payload', 'render', '--os-image', U, '--role', 'master', '--role', 'worker', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const j = parsed(r.stdout) as {
      apiVersion: string;
      kind: string;
      items: Array<{ kind: string; metadata: { name: string }; spec: object }>;
    };
    expect([j.apiVersion, j.kind]).toEqual(['v1', 'List']);
    expect(j.items.map((i) => [i.kind, i.metadata.name])).toEqual([
      ['MachineConfig', '00-master-osimageurl'],
      ['MachineConfig', '00-worker-osimageurl'],
    ]);
    expect(j.items[0]!.spec).toMatchObject({ osImageURL: U });
  });

  it('with --out: the files and what happened to each', async () => {
    const out = join(await tempDir(), 'mcs');
    const args = ['payload', 'render', '--os-image', U, '--role', 'master', '--out', out, '-o', 'json'];
    const r = await osimage(args);
    expect(r.exitCode).toBe(0);
    expect(parsed(r.stdout)).toEqual({ dir: out, files: [{ path: join(out, '00-master-osimageurl.yaml'), action: 'created' }] });
    const again = await osimage(args);
    expect(again.stderr).toBe('');
    expect(parsed(again.stdout)).toEqual({ dir: out, files: [{ path: join(out, '00-master-osimageurl.yaml'), action: 'unchanged' }] });
  });

  it('-o name is a usage error', async () => {
    const r = await osimage(['payload', 'render', '--os-image', U, '--role', 'master', '-o', 'name']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(INVALID('name'));
  });
});

describe('payload bootimages -o json', () => {
  const KEYS = ['path', 'written', 'era', 'eraFromFile', 'defaultStream', 'streams', 'warnings'];

  it('one stream: its name and each arch with its build and platforms; a rerun says not written', async () => {
    const dir = await tempDir();
    const args = ['payload', 'bootimages', '--dir', dir, '--base-url', server.url, '--channel', '4.16-9.4/builds', '-o', 'json'];
    const r = await osimage(args);
    expect(r.exitCode).toBe(0);
    const j = parsed(r.stdout);
    expect(Object.keys(j)).toEqual(KEYS);
    expect(j).toMatchObject({
      path: join(dir, 'coreos-bootimages.yaml'),
      written: true,
      era: '2026',
      eraFromFile: false,
      defaultStream: null,
      warnings: [],
    });
    const streams = j.streams as Array<{ osStream: null; default: boolean; name: string; architectures: Array<Record<string, unknown>> }>;
    expect(streams).toHaveLength(1);
    expect(streams[0]).toMatchObject({ osStream: null, default: true, name: 'rhcos-4.16-9.4' });
    expect(streams[0]!.architectures.map((a) => a.arch)).toEqual(['aarch64', 'ppc64le', 's390x', 'x86_64']);
    expect(streams[0]!.architectures[3]).toMatchObject({
      builds: ['416.94.202405291527-0'],
      platforms: expect.arrayContaining(['metal', 'qemu']),
    });
    expect(parsed((await osimage(args)).stdout)).toMatchObject({ written: false, eraFromFile: true });
  });

  it('two OS streams: each by name, rhel-9 the default', async () => {
    const dir = await tempDir();
    const r = await osimage([
      ...['payload', 'bootimages', '--dir', dir, '--base-url', server.url],
      ...['--os-stream', 'rhel-9=4.18-9.4/builds', '--os-stream', 'rhel-10=rhel-10.2/builds', '-o', 'json'],
    ]);
    expect(r.exitCode).toBe(0);
    const j = parsed(r.stdout);
    expect(j.defaultStream).toBe('rhel-9');
    expect((j.streams as Array<{ osStream: string; default: boolean }>).map((s) => [s.osStream, s.default])).toEqual([
      ['rhel-10', false],
      ['rhel-9', true],
    ]);
  });

  it('a deprecated flag is a warning on stderr and in the object', async () => {
    const dir = await tempDir();
    const r = await osimage([
      ...['payload', 'bootimages', '--dir', dir, '--base-url', server.url, '--channel', '4.16-9.4/builds'],
      ...['--stream', 'rhcos-x', '-o', 'json'],
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('warning: --stream is deprecated: use --name (the "stream" field)');
    const j = parsed(r.stdout);
    expect(j.warnings).toEqual([{ code: 'deprecated-flag', message: '--stream is deprecated: use --name (the "stream" field)' }]);
    expect((j.streams as Array<{ name: string }>)[0]!.name).toBe('rhcos-x');
  });

  it('-o yaml is a usage error', async () => {
    const dir = await tempDir();
    const r = await osimage(['payload', 'bootimages', '--dir', dir, '-o', 'yaml']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(INVALID('yaml'));
    expect(await snapshot(dir)).toEqual({});
  });
});
