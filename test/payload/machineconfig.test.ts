import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import {
  loadManifests,
  writeMachineConfigs,
  mergeMachineConfigs,
  renderOsImageUrlConfigs,
  selectForRole,
  toYamlStream,
  type MachineConfig,
} from '../../src/payload/machineconfig.js';
import { cleanup, snapshot, tempDir, U, W, Z } from './helpers.js';
import { renameFault } from '../helpers/rename-fault.js';

// A crash before a rename, without a hook in src/ (see the helper).
vi.mock('node:fs/promises', async (real) => (await import('../helpers/rename-fault.js')).withRenameFault(real));

afterEach(async () => {
  delete renameFault.beforeRename;
  await cleanup();
});

const ROLE = 'machineconfiguration.openshift.io/role';

function mc(
  name: string,
  url: string,
  config: Record<string, unknown> = { ignition: { version: '2.2.0' } },
  extra: Record<string, unknown> = {},
  role = 'master',
): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name, labels: { [ROLE]: role } },
    spec: { osImageURL: url, config, ...extra },
  };
}

describe('payload render', () => {
  it('gives exactly 00-<role>-osimageurl per role with only the URL and Ignition 2.2.0', () => {
    const out = renderOsImageUrlConfigs(U, ['master', 'worker']);
    expect(out.map((m) => m.metadata.name)).toEqual(['00-master-osimageurl', '00-worker-osimageurl']);
    for (const [i, role] of ['master', 'worker'].entries()) {
      expect(out[i]).toEqual({
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfig',
        metadata: { name: `00-${role}-osimageurl`, labels: { [ROLE]: role } },
        spec: { osImageURL: U, config: { ignition: { version: '2.2.0' } } },
      });
    }
    expect(renderOsImageUrlConfigs(U, ['infra'])[0]!.metadata.name).toBe('00-infra-osimageurl');
  });

  it('streams as multi-document YAML that parses back to the same objects', () => {
    const out = renderOsImageUrlConfigs(U, ['master', 'worker']);
    const docs = parseAllDocuments(toYamlStream(out));
    expect(Array.isArray(docs) && docs.map((d) => d.toJS())).toEqual(out);
    expect(toYamlStream(out)).toContain('version: 2.2.0\n');
  });

  it('refuses an empty URL, a tag (unless allowed), a bad role, a repeated role, no role', () => {
    expect(() => renderOsImageUrlConfigs('', ['master'])).toThrow(/empty/);
    expect(() => renderOsImageUrlConfigs('quay.io/x/os:4.1', ['master'])).toThrow(/by tag/);
    expect(renderOsImageUrlConfigs('quay.io/x/os:4.1', ['master'], { allowTag: true })).toHaveLength(1);
    expect(() => renderOsImageUrlConfigs(U, ['Master'])).toThrow(/invalid role "Master"/);
    expect(() => renderOsImageUrlConfigs(U, ['master', 'master'])).toThrow(/given twice/);
    expect(() => renderOsImageUrlConfigs(U, [])).toThrow(/at least one --role/);
  });
});

describe('writeMachineConfigs', () => {
  it('creates the folder and the files, leaves same bytes alone, updates changed ones, all or nothing', async () => {
    const dir = join(await tempDir(), 'a', 'mcs');
    const first = await writeMachineConfigs(dir, renderOsImageUrlConfigs(U, ['master', 'worker']));
    expect(first.map((w) => [w.path, w.action])).toEqual([
      [join(dir, '00-master-osimageurl.yaml'), 'created'],
      [join(dir, '00-worker-osimageurl.yaml'), 'created'],
    ]);
    const files = await snapshot(dir);
    expect((await writeMachineConfigs(dir, renderOsImageUrlConfigs(U, ['master', 'worker']))).map((w) => w.action)).toEqual([
      'unchanged',
      'unchanged',
    ]);
    renameFault.beforeRename = (p) => {
      if (p.includes('worker')) throw new Error('no space left');
    };
    await expect(writeMachineConfigs(dir, renderOsImageUrlConfigs(W, ['master', 'worker']))).rejects.toThrow(/no space left/);
    expect(await snapshot(dir)).toEqual(files);
    delete renameFault.beforeRename;
    expect((await writeMachineConfigs(dir, renderOsImageUrlConfigs(W, ['master', 'infra']))).map((w) => w.action)).toEqual([
      'updated',
      'created',
    ]);
  });
});

describe('payload merge: osImageURL by policy', () => {
  const base = [mc('00-master', ''), mc('00-master-osimageurl', U), mc('00-master-ssh', ''), mc('99-user', W)];

  it('first-non-empty (2019-01) picks the first in name order', () => {
    const r = mergeMachineConfigs(base, 'master', { policy: 'first-non-empty' });
    expect(r.osImageURL).toBe(U);
    expect(r.osImageURLFrom).toBe('00-master-osimageurl');
    const withZ = mergeMachineConfigs([...base, mc('00-0walters-master-osimageurl', Z)], 'master', { policy: 'first-non-empty' });
    expect(withZ.osImageURL).toBe(Z);
  });

  it('the MCO unit test: names 4, 3, 0, 1, 2 with URLs on 1 and 3 gives 1', () => {
    const list = ['4', '3', '0', '1', '2'].map((n) => mc(n, n === '1' ? U : n === '3' ? W : ''));
    expect(mergeMachineConfigs(list, 'master', { policy: 'first-non-empty' }).osImageURL).toBe(U);
  });

  it('last-wins (2022, the default) picks the last non-empty', () => {
    expect(mergeMachineConfigs(base, 'master').osImageURL).toBe(W);
    expect(mergeMachineConfigs(base, 'master', { policy: 'last-wins' }).osImageURLFrom).toBe('99-user');
  });

  it('the ControllerConfig value is used when no MC sets one, and an MC overrides it', () => {
    const empty = [mc('00-master', ''), mc('00-master-ssh', '')];
    expect(mergeMachineConfigs(empty, 'master', { osImage: Z }).osImageURL).toBe(Z);
    expect(mergeMachineConfigs(empty, 'master', { osImage: Z }).osImageURLFrom).toBeUndefined();
    expect(mergeMachineConfigs(base, 'master', { osImage: Z }).osImageURL).toBe(W);
    const r = mergeMachineConfigs(empty, 'master');
    expect(r.osImageURL).toBe('');
    expect(r.warnings[0]!.code).toBe('no-os-image-url');
    expect(r.warnings[0]!.message).toMatch(/no MachineConfig for pool master sets spec.osImageURL and no --os-image is given/);
  });

  it('controller-config (2019-03..2022) takes only the ControllerConfig value and needs one', () => {
    const r = mergeMachineConfigs(base, 'master', { policy: 'controller-config', osImage: Z });
    expect(r.osImageURL).toBe(Z);
    expect(r.osImageURLFrom).toBeUndefined();
    expect(() => mergeMachineConfigs(base, 'master', { policy: 'controller-config' })).toThrow(
      /takes osImageURL only from the ControllerConfig \(policy controller-config\): give --os-image/,
    );
  });

  it('last-wins skips MCs the controller generated', () => {
    const gen = mc('99-generated', Z);
    gen.metadata.annotations = { 'machineconfiguration.openshift.io/generated-by-controller-version': 'v1' };
    expect(mergeMachineConfigs([...base, gen], 'master').osImageURL).toBe(W);
  });
});

describe('payload merge: the rendered name', () => {
  const set = () => [
    mc('00-master', '', { ignition: { version: '2.2.0' }, storage: { files: [{ filesystem: 'root', path: '/etc/a', mode: 420 }] } }),
    mc('00-master-osimageurl', U),
    mc('01-master-kubelet', '', { ignition: { version: '2.2.0' }, systemd: { units: [{ name: 'kubelet.service', enabled: true }] } }),
    mc('99-master-ssh', '', { ignition: { version: '2.2.0' }, passwd: { users: [{ name: 'core' }] } }),
  ];

  function permutations<T>(xs: T[]): T[][] {
    if (xs.length <= 1) return [xs];
    return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
  }

  it('is the same for every input order, and matches rendered-<role>-<32 hex>', () => {
    const names = new Set(permutations(set()).map((p) => mergeMachineConfigs(p, 'master').name));
    expect(names.size).toBe(1);
    expect([...names][0]).toMatch(/^rendered-master-[0-9a-f]{32}$/);
  });

  it('changes when only the URL changes, or anything else in the spec', () => {
    const a = mergeMachineConfigs(set(), 'master').name;
    const s2 = set();
    s2[1]!.spec.osImageURL = W;
    expect(mergeMachineConfigs(s2, 'master').name).not.toBe(a);
    const s3 = set();
    (s3[0]!.spec.config as { storage: { files: Array<{ mode: number }> } }).storage.files[0]!.mode = 384;
    expect(mergeMachineConfigs(s3, 'master').name).not.toBe(a);
    const s4 = set();
    s4[3]!.spec.kernelArguments = ['nosmt'];
    expect(mergeMachineConfigs(s4, 'master').name).not.toBe(a);
    // renaming an MC that does not change the merged spec keeps the name
    const s5 = set();
    s5[3]!.metadata.name = '99-master-ssh-renamed';
    expect(mergeMachineConfigs(s5, 'master').name).toBe(a);
  });

  it('is md5 of the documented 80-byte salt followed by the sorted-key YAML of the spec (README)', () => {
    // 4.1's MCO: spec 2 appended, only osImageURL and config in the spec.
    const r = mergeMachineConfigs(set(), 'master', { release: '4.1', policy: 'last-wins' });
    const salt = Buffer.from(
      '844045581e1a1a6646a073a3e676996b7cdd16ab2b5e3d57f628aa85785304e5edff077137f369bc132ee20015c1ac2460092b12df15d5eff546da1b0066af0c2fd325a56066b14f8295438887939f03',
      'hex',
    );
    expect(salt.length).toBe(80);
    const specYaml = [
      'config:',
      '  ignition:',
      '    version: 2.2.0',
      '  passwd:',
      '    users:',
      '      - name: core',
      '  storage:',
      '    files:',
      '      - filesystem: root',
      '        mode: 420',
      '        path: /etc/a',
      '  systemd:',
      '    units:',
      '      - enabled: true',
      '        name: kubelet.service',
      `osImageURL: ${U}`,
      '',
    ].join('\n');
    expect(stringify(r.rendered.spec, { lineWidth: 0, minContentWidth: 0 })).toBe(specYaml);
    expect(r.hash).toBe(createHash('md5').update(salt).update(specYaml).digest('hex'));
  });

  it('to 4.5, Ignition 2 is appended in name order: lists concatenated, the first version kept, the first fips ignored', () => {
    const two = [
      mc('10-b', '', { ignition: { version: '2.3.0' }, storage: { files: [{ path: '/b' }] } }, { fips: false, kernelArguments: ['b'] }),
      mc('00-a', '', { ignition: { version: '2.2.0' }, storage: { files: [{ path: '/a' }] } }, { fips: true, kernelArguments: ['a'] }),
    ];
    const r = mergeMachineConfigs(two, 'master', { release: '4.5', osImage: Z });
    expect(r.merged).toEqual(['00-a', '10-b']);
    expect(r.rendered.spec.config).toEqual({ ignition: { version: '2.2.0' }, storage: { files: [{ path: '/a' }, { path: '/b' }] } });
    expect(r.rendered.spec.fips).toBe(false);
    expect(r.rendered.spec.kernelArguments).toEqual(['a', 'b']);
    expect(r.rendered.spec.kernelType).toBe('default');
    expect(r.rendered.spec.extensions).toBeUndefined();
  });

  it('refuses no MCs, in the MCO words', () => {
    expect(() => mergeMachineConfigs([], 'master')).toThrow("couldn't find any MachineConfigs for pool: master");
  });
});

describe('loadManifests + selectForRole', () => {
  it('reads folders and files, multi-document YAML, JSON and Lists; keeps the role, says what it skipped', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, '00-master.yaml'), toYamlStream([mc('00-master', ''), mc('00-worker', '', undefined, {}, 'worker')]));
    await writeFile(join(dir, 'list.json'), JSON.stringify({ kind: 'MachineConfigList', items: [mc('99-user', W)] }));
    await writeFile(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n');
    await writeFile(join(dir, 'README.md'), '# not read');
    const extra = await tempDir();
    await writeFile(join(extra, 'osimageurl.yml'), toYamlStream([mc('00-master-osimageurl', U)]));
    const nolabel = mc('50-nolabel', U);
    delete nolabel.metadata.labels;
    await writeFile(join(extra, 'nolabel.yaml'), stringify(nolabel));
    const docs = await loadManifests([dir, join(extra, 'osimageurl.yml'), join(extra, 'nolabel.yaml')]);
    const { selected, skipped } = selectForRole(docs, 'master');
    expect(selected.map((s) => s.mc.metadata.name).sort()).toEqual(['00-master', '00-master-osimageurl', '99-user']);
    expect(skipped.map((s) => [s.name, s.reason])).toEqual([
      ['00-worker', 'role "worker"'],
      ['x', 'not a MachineConfig (kind "ConfigMap")'],
      ['50-nolabel', 'no machineconfiguration.openshift.io/role label'],
    ]);
    expect(skipped[0]!.source).toBe(`${join(dir, '00-master.yaml')}#2`);
  });

  it('refuses duplicate names, bad files and missing paths, naming them', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.yaml'), stringify(mc('00-master', '')));
    await writeFile(join(dir, 'b.yaml'), stringify(mc('00-master', U)));
    expect(() =>
      selectForRole(
        [
          { source: 'a', value: mc('x', '') },
          { source: 'b', value: mc('x', U) },
        ],
        'master',
      ),
    ).toThrow(/"x" is defined twice: in a and b/);
    await expect(loadManifests([join(dir, 'nope')])).rejects.toThrow(/nope: no such file$/);
    await writeFile(join(dir, 'bad.yaml'), 'kind: MachineConfig\nmetadata: [\n');
    await expect(loadManifests([join(dir, 'bad.yaml')])).rejects.toThrow(/bad.yaml:\d+: invalid YAML/);
    const bad = mc('y', '');
    (bad.spec as Record<string, unknown>).osImageURL = 5;
    expect(() => selectForRole([{ source: 'c', value: bad }], 'master')).toThrow(/c: MachineConfig y: spec.osImageURL must be a string/);
  });
});
