/**
 * The MCO's merge rules era by era, for the cases the MCO's own tests (mco-merge-fixtures.test.ts) leave out.
 */
import { describe, expect, it } from 'vitest';
import { mergeRulesFor } from '../../src/payload/mco-eras.js';
import { GENERATED_BY_ANNOTATION, mcoMerge, ROLE_LABEL, type MergeInput } from '../../src/payload/mco-merge.js';

const mc = (name: string, spec: Record<string, unknown>, role = 'worker', annotations?: Record<string, string>): MergeInput => ({
  metadata: { name, labels: { [ROLE_LABEL]: role }, ...(annotations ? { annotations } : {}) },
  spec,
});
const ign = (version: string, rest: Record<string, unknown> = {}) => ({ config: { ignition: { version }, ...rest } });
const file = (path: string, source: string, extra: Record<string, unknown> = {}) => ({ path, contents: { source }, ...extra });
const merge = (release: string, inputs: MergeInput[], controller = {}) => mcoMerge(inputs, { rules: mergeRulesFor(release), controller });

/** The parts of a merged Ignition config the tests look at. */
interface Ign {
  ignition: { version: string };
  storage: { files: Array<Record<string, unknown>> };
  systemd: { units: unknown[] };
  passwd: { users: unknown[] };
}
const ignOf = (spec: Record<string, unknown>) => spec.config as Ign;

describe('spec 3 (4.6 on): merged by key, whatever the inputs spec', () => {
  const inputs = [
    mc(
      '00-a',
      ign('3.2.0', {
        storage: { files: [file('/etc/test1', 'data:,old')] },
        passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k1'] }] },
      }),
    ),
    mc(
      '01-b',
      ign('3.4.0', { storage: { files: [file('/etc/test1', 'data:,new')] }, systemd: { units: [{ name: 'foo.service', enabled: true }] } }),
    ),
    mc(
      '02-c',
      ign('3.5.0', {
        systemd: { units: [{ name: 'foo.service', contents: '[Unit]\n' }] },
        passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k2'] }] },
      }),
    ),
    mc('03-old', ign('2.2.0', { passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k3'] }] } })),
  ];

  it('one /etc/test1 (the later contents), one foo.service, one core user with every key; the release version', () => {
    const config = ignOf(merge('4.21', inputs).spec);
    expect(config.ignition.version).toBe('3.5.0');
    expect(config.storage.files).toEqual([{ path: '/etc/test1', contents: { source: 'data:,new' }, overwrite: true }]);
    expect(config.systemd.units).toEqual([{ name: 'foo.service', contents: '[Unit]\n', enabled: true }]);
    expect(config.passwd.users).toEqual([{ name: 'core', sshAuthorizedKeys: ['k1', 'k2', 'k3'] }]);
  });

  it('the result carries the spec of its release: 3.1 in 4.6, 3.2 in 4.7, 3.4 in 4.14, 3.5 in 4.19', () => {
    const v2only = [mc('00-a', ign('2.2.0'))];
    expect(['4.6', '4.7', '4.13', '4.14', '4.18', '4.19'].map((r) => ignOf(merge(r, v2only).spec).ignition.version)).toEqual([
      '3.1.0',
      '3.2.0',
      '3.2.0',
      '3.4.0',
      '3.4.0',
      '3.5.0',
    ]);
    // A config newer than the release knows is refused, with the versions it knows.
    expect(() => merge('4.7', [mc('00-a', ign('3.4.0'))])).toThrow(/unknown version\. Supported spec versions: 2\.2, 3\.0, 3\.1, 3\.2/);
  });

  it('empty fields are written as the MCO writes them', () => {
    const spec = merge('4.16', [mc('00-a', ign('3.4.0'))], { baseOSContainerImage: 'quay.io/x/os@sha256:1' }).spec;
    expect(spec).toEqual({
      osImageURL: 'quay.io/x/os@sha256:1',
      baseOSExtensionsContainerImage: '',
      config: { ignition: { version: '3.4.0' } },
      kernelArguments: [],
      extensions: [],
      fips: false,
      kernelType: 'default',
    });
  });

  it('files get overwrite: true from 4.13 (an explicit false stays); not before', () => {
    const inputs2 = [mc('00-a', ign('3.2.0', { storage: { files: [file('/a', 'data:,'), file('/b', 'data:,', { overwrite: false })] } }))];
    const files = (r: string) => ignOf(merge(r, inputs2).spec).storage.files.map((f) => f.overwrite);
    expect(files('4.12')).toEqual([undefined, false]);
    expect(files('4.13')).toEqual([true, false]);
  });
});

describe('kernelType, fips, kernel arguments and extensions by era', () => {
  const rt = mc('10-rt', { kernelType: 'realtime' });
  const dflt = mc('20-default', { kernelType: 'default', fips: true });
  const k64 = mc('30-64k', { kernelType: '64k-pages' });

  it('realtime is kept when a later MC says default; 4.6-4.10 lose the fips of MCs after it', () => {
    expect(merge('4.10', [rt, dflt]).spec).toMatchObject({ kernelType: 'realtime', fips: false });
    expect(merge('4.11', [rt, dflt]).spec).toMatchObject({ kernelType: 'realtime', fips: true });
  });

  it('64k-pages from 4.15, where the last realtime or 64k-pages MC wins; refused before', () => {
    expect(merge('4.15', [rt, dflt, k64]).spec.kernelType).toBe('64k-pages');
    expect(() => merge('4.14', [k64])).toThrow('kernelType=64k-pages is invalid');
  });

  it('kernel arguments concatenated in merge order, de-duplicated in 4.12-4.13 only', () => {
    const a = mc('00-a', { kernelArguments: ['nosmt', 'x=1'] });
    const b = mc('01-b', { kernelArguments: ['nosmt'] });
    expect(merge('4.11', [b, a]).spec.kernelArguments).toEqual(['nosmt', 'x=1', 'nosmt']);
    expect(merge('4.12', [b, a]).spec.kernelArguments).toEqual(['nosmt', 'x=1']);
    expect(merge('4.15', [b, a]).spec.kernelArguments).toEqual(['nosmt', 'x=1', 'nosmt']);
  });

  it('kernel-devel beside a non-default kernel is refused; unknown extensions from 4.19 (MCs with a config)', () => {
    expect(() => merge('4.16', [rt, mc('40-ext', { extensions: ['kernel-devel'] })])).toThrow(
      'installing kernel-devel extension is not supported with kernelType: realtime',
    );
    const odd = mc('40-ext', { ...ign('3.4.0'), extensions: ['usbguard', 'emacs', 'vim'] });
    expect(merge('4.18', [odd]).spec.extensions).toEqual(['usbguard', 'emacs', 'vim']);
    expect(() => merge('4.19', [odd])).toThrow('invalid extensions found: [emacs vim]');
  });

  it('4.13 takes 3.4 configs down to 3.2, shouldExist joining the kernel arguments; shouldNotExist is refused', () => {
    const k = mc('00-k', { ...ign('3.4.0', { kernelArguments: { shouldExist: ['a=1'] } }), kernelArguments: ['b=2'] });
    const r = merge('4.13', [k]);
    expect(r.spec.kernelArguments).toEqual(['b=2', 'a=1']);
    expect(r.spec.config).toEqual({ ignition: { version: '3.2.0' } });
    // In merge order, whatever order the MCs come in.
    const b = mc('10-b', ign('3.4.0', { kernelArguments: { shouldExist: ['b=1'] } }));
    const a = mc('00-a', ign('3.4.0', { kernelArguments: { shouldExist: ['a=1'] } }));
    expect(merge('4.13', [b, a]).spec.kernelArguments).toEqual(['a=1', 'b=1']);
    expect(() => merge('4.13', [mc('00-k', ign('3.4.0', { kernelArguments: { shouldNotExist: ['a'] } }))])).toThrow(
      'Ignition KernelArguments.ShouldNotExist is not supported in this release',
    );
  });
});

describe('the OS images', () => {
  const url = (name: string, v: string, annotations?: Record<string, string>) => mc(name, { osImageURL: v }, 'worker', annotations);

  it('4.1-4.11 take only the ControllerConfig osImageURL; 4.12 on the last MC value overrides baseOSContainerImage', () => {
    const inputs = [url('00-a', 'quay.io/a'), url('99-b', 'quay.io/b')];
    expect(merge('4.11', inputs, { osImageURL: 'quay.io/cc', baseOSContainerImage: 'quay.io/base' }).osImageURL).toBe('quay.io/cc');
    expect(merge('4.12', inputs, { osImageURL: 'quay.io/cc', baseOSContainerImage: 'quay.io/base' }).osImageURL).toBe('quay.io/b');
    expect(merge('4.12', [mc('00-a', {})], { osImageURL: 'quay.io/cc', baseOSContainerImage: 'quay.io/base' }).osImageURL).toBe(
      'quay.io/base',
    );
  });

  it('from 4.22 an MC the controller generated cannot override them', () => {
    const gen = url('99-gen', 'quay.io/gen', { [GENERATED_BY_ANNOTATION]: 'abc' });
    const inputs = [url('00-user', 'quay.io/user'), gen];
    expect(merge('4.21', inputs).osImageURL).toBe('quay.io/gen');
    expect(merge('4.22', inputs).osImageURL).toBe('quay.io/user');
  });

  it('a custom pool from 4.15: worker MCs first, so the pool s own MCs win', () => {
    const inputs = [url('99-infra', 'quay.io/infra', undefined), url('99-worker-z', 'quay.io/worker')];
    inputs[0]!.metadata.labels = { [ROLE_LABEL]: 'infra' };
    expect(merge('4.14', inputs).order).toEqual(['99-infra', '99-worker-z']);
    expect(merge('4.15', inputs).order).toEqual(['99-worker-z', '99-infra']);
    expect(merge('4.15', inputs).osImageURL).toBe('quay.io/infra');
  });
});

describe('the spec 2 era (4.1-4.5)', () => {
  it('fips is a field from 4.2 (the first MC not looked at), kernelType from 4.4', () => {
    const two = [mc('00-a', { fips: true }), mc('01-b', { kernelType: 'realtime' })];
    expect(merge('4.1', two).spec).not.toHaveProperty('fips');
    expect(merge('4.2', two).spec).toMatchObject({ fips: false });
    expect(merge('4.2', two).spec).not.toHaveProperty('kernelType');
    expect(merge('4.4', [mc('0-x', {}), ...two]).spec).toMatchObject({ fips: true, kernelType: 'realtime' });
  });

  it('keeps the first config s version and appends lists', () => {
    const r = merge('4.5', [
      mc('00-a', ign('2.2.0', { storage: { files: [{ filesystem: 'root', path: '/a' }] } })),
      mc('01-b', ign('2.2.0', { storage: { files: [{ filesystem: 'root', path: '/a' }] } })),
    ]);
    expect(ignOf(r.spec).storage.files).toHaveLength(2);
    expect(ignOf(r.spec).ignition.version).toBe('2.2.0');
  });
});

describe('mergeRulesFor', () => {
  it('reads MAJOR.MINOR (a patch or pre-release is fine) and refuses the rest', () => {
    expect(mergeRulesFor('4.15.3').release).toBe('4.15');
    expect(mergeRulesFor('v5.0').release).toBe('5.0');
    expect(() => mergeRulesFor('3.11')).toThrow(/from 4\.1 on/);
    expect(() => mergeRulesFor('latest')).toThrow(/MAJOR\.MINOR/);
  });
});
