import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  DEFAULT_BASE_URL,
  findMisspeltPins,
  misspeltEnvWarnings,
  normalizeBaseUrl,
  pinNames,
  pinVarPrefix,
  resolveSettings,
} from '../../src/rhcos/settings.js';

describe('settings precedence', () => {
  it("the default base URL is the public mirror's prod streams", () => {
    expect(DEFAULT_BASE_URL).toBe('https://rhcos.mirror.openshift.com/art/storage/prod/streams');
    const s = resolveSettings({ channel: '4.16-9.4/builds' }, {});
    expect(s).toMatchObject({ baseUrl: DEFAULT_BASE_URL, channel: '4.16-9.4/builds', build: '', arch: 'x86_64' });
    expect(s.sources).toEqual({ baseUrl: 'default', channel: 'flag', build: 'default', arch: 'default' });
  });

  it('there is no default channel: one usage line naming the flag, the variable and a real channel', () => {
    const message =
      'no channel: give --channel or RHCOS_DEFAULT_CHANNEL, e.g. --channel 4.16-9.4/builds (a stream of the public mirror https://rhcos.mirror.openshift.com/art/storage/prod/streams)';
    expect(() => resolveSettings({}, {})).toThrow(new UsageError(message));
    expect(() => resolveSettings({ osStream: 'rhel-10' }, {})).toThrow(/give --channel or RHCOS_RHEL_10_DEFAULT_CHANNEL, e\.g\./);
    // A command whose operands may name the channel asks for it itself.
    expect(resolveSettings({}, {}, { channelOptional: true })).toMatchObject({ channel: '', sources: { channel: 'default' } });
  });

  it('env beats the default and a flag beats env', () => {
    const env = { RHCOS_BUILD_NAME: '47.245', RHCOS_DEFAULT_CHANNEL: 'maipo', RHCOS_BASE_URL: 'http://env.example/r' };
    expect(resolveSettings({}, env)).toMatchObject({ build: '47.245', channel: 'maipo', baseUrl: 'http://env.example/r' });
    const s = resolveSettings({ build: '47.235', channel: 'ootpa', baseUrl: 'http://flag.example/r/' }, env);
    expect(s).toMatchObject({ build: '47.235', channel: 'ootpa', baseUrl: 'http://flag.example/r' });
    expect(s.sources).toMatchObject({ build: 'flag', channel: 'flag', baseUrl: 'flag' });
  });

  it('treats an empty env value as unset', () => {
    const s = resolveSettings({ channel: 'maipo' }, { RHCOS_BUILD_NAME: '', RHCOS_BASE_URL: '' });
    expect(s).toMatchObject({ build: '', channel: 'maipo', baseUrl: DEFAULT_BASE_URL });
    expect(s.sources.build).toBe('default');
    expect(() => resolveSettings({}, { RHCOS_DEFAULT_CHANNEL: '' })).toThrow(/^no channel: /);
  });

  it('an explicit empty --build flag means the newest even when env pins', () => {
    expect(resolveSettings({ build: '', channel: 'maipo' }, { RHCOS_BUILD_NAME: '47.245' }).build).toBe('');
  });

  it.each([' ', ' 47.245', '47.245\n', 'a b', '47/245', '..', '.', 'a\\b'])('rejects build name %j as a usage error', (name) => {
    expect(() => resolveSettings({ channel: 'maipo' }, { RHCOS_BUILD_NAME: name })).toThrow(UsageError);
    expect(() => resolveSettings({ build: name, channel: 'maipo' }, {})).toThrow(UsageError);
  });

  it('names where a bad value came from', () => {
    expect(() => resolveSettings({ channel: 'maipo' }, { RHCOS_BUILD_NAME: 'a b' })).toThrow(/RHCOS_BUILD_NAME/);
    expect(() => resolveSettings({ build: 'a/b', channel: 'maipo' }, {})).toThrow(/--build/);
  });

  it('never yields // from trailing slashes', () => {
    expect(normalizeBaseUrl('https://h.example/storage/releases///')).toBe('https://h.example/storage/releases');
    expect(normalizeBaseUrl('file:///srv/mirror/')).toBe('file:///srv/mirror');
  });

  it('turns a plain path into a file URL and refuses other schemes', () => {
    expect(normalizeBaseUrl('/srv/mirror')).toBe('file:///srv/mirror');
    expect(() => normalizeBaseUrl('ftp://h/x')).toThrow(UsageError);
    expect(() => normalizeBaseUrl('http://h/x?y=1')).toThrow(UsageError);
  });

  it('accepts prod-stream channels and refuses traversal', () => {
    expect(resolveSettings({ channel: '4.16-9.4/builds/' }, {}).channel).toBe('4.16-9.4/builds');
    expect(() => resolveSettings({ channel: '../etc' }, {})).toThrow(UsageError);
    expect(() => resolveSettings({ channel: 'a//b' }, {})).toThrow(UsageError);
  });

  it('rejects odd arches', () => {
    expect(() => resolveSettings({ arch: 'x86/64', channel: 'maipo' }, {})).toThrow(/--arch/);
  });
});

describe('misspelt pins', () => {
  it.each([
    ['RHCOS_BUILDNAME', 'RHCOS_BUILD_NAME'],
    ['RELEASE_BUILD_NAME', 'RHCOS_BUILD_NAME'],
    ['OPENSHIFT_INSTALL_RHCOS_BUILD_NAME', 'RHCOS_BUILD_NAME'],
    ['OPENSHIFT_INSTALL_RHCOS_BASE_URL', 'RHCOS_BASE_URL'],
    ['OPENSHIFT_INSTALL_RHCOS_DEFAULT_CHANNEL', 'RHCOS_DEFAULT_CHANNEL'],
    ['RHCOS_BUILD_NAMES', 'RHCOS_BUILD_NAME'],
    ['RHCOS_BASE_ULR', 'RHCOS_BASE_URL'],
    ['RHCOS_DEFALT_CHANNEL', 'RHCOS_DEFAULT_CHANNEL'],
    ['rhcos_build_name', 'RHCOS_BUILD_NAME'],
  ])('%s → %s', (name, suggestion) => {
    expect(findMisspeltPins([name])).toEqual([{ name, suggestion }]);
  });

  it('leaves the real names and unrelated variables alone', () => {
    expect(findMisspeltPins(['RHCOS_BUILD_NAME', 'RHCOS_BASE_URL', 'RHCOS_DEFAULT_CHANNEL', 'PATH', 'HOME', 'BUILD_ID'])).toEqual([]);
  });

  it('warns only for set, non-empty variables, naming the right one', () => {
    const w = misspeltEnvWarnings({ RELEASE_BUILD_NAME: '47.245', RHCOS_BUILDNAME: '', PATH: '/bin' });
    expect(w).toHaveLength(1);
    expect(w[0]!.code).toBe('misspelt-pin');
    expect(w[0]!.message).toContain('RELEASE_BUILD_NAME');
    expect(w[0]!.message).toContain('RHCOS_BUILD_NAME');
  });
});

describe('OS stream pin variables', () => {
  it('one function maps a stream to its prefix: rhel-10 → RHCOS_RHEL_10_, the default stream → RHCOS_', () => {
    expect(pinVarPrefix()).toBe('RHCOS_');
    expect(pinVarPrefix('rhel-10')).toBe('RHCOS_RHEL_10_');
    expect(pinVarPrefix('centos-10')).toBe('RHCOS_CENTOS_10_');
    expect(pinNames('rhel-10')).toEqual({
      RHCOS_BUILD_NAME: 'RHCOS_RHEL_10_BUILD_NAME',
      RHCOS_DEFAULT_CHANNEL: 'RHCOS_RHEL_10_DEFAULT_CHANNEL',
      RHCOS_BASE_URL: 'RHCOS_RHEL_10_BASE_URL',
    });
    for (const bad of ['RHEL-10', 'rhel_10', 'rhel 10', '', '-rhel', 'rhel--10', 'rhel-10.2']) {
      expect(() => pinVarPrefix(bad), bad).toThrow(UsageError);
    }
  });

  it("a stream's settings come from its own environment variables, never from RHCOS_*; flag beats env", () => {
    const env = {
      RHCOS_BUILD_NAME: '9.8.20260428-0',
      RHCOS_DEFAULT_CHANNEL: 'rhel-9.8/builds',
      RHCOS_RHEL_10_BUILD_NAME: '10.2.20260217-0',
      RHCOS_RHEL_10_DEFAULT_CHANNEL: 'rhel-10.2/builds',
      RHCOS_RHEL_10_BASE_URL: 'http://env.example/r',
    };
    const s = resolveSettings({ osStream: 'rhel-10' }, env);
    expect(s).toMatchObject({ build: '10.2.20260217-0', channel: 'rhel-10.2/builds', baseUrl: 'http://env.example/r' });
    expect(s.sources).toMatchObject({ build: 'env', channel: 'env', baseUrl: 'env' });
    expect(resolveSettings({ osStream: 'rhel-10', channel: 'rhel-10.2/builds' }, { RHCOS_BUILD_NAME: '9.8.20260428-0' })).toMatchObject({
      build: '',
    });
    expect(resolveSettings({ osStream: 'rhel-10', build: '10.2.20260212-0' }, env).build).toBe('10.2.20260212-0');
    expect(resolveSettings({}, env)).toMatchObject({ build: '9.8.20260428-0', channel: 'rhel-9.8/builds' });
    expect(() => resolveSettings({ osStream: 'rhel-10', channel: 'c' }, { RHCOS_RHEL_10_BUILD_NAME: 'a b' })).toThrow(
      /RHCOS_RHEL_10_BUILD_NAME/,
    );
  });

  it('the stream families are no misspelt pins; their near misses are', () => {
    expect(
      findMisspeltPins([
        'RHCOS_RHEL_10_BUILD_NAME',
        'RHCOS_RHEL_10_DEFAULT_CHANNEL',
        'RHCOS_RHEL_10_BASE_URL',
        'RHCOS_CENTOS_10_BUILD_NAME',
      ]),
    ).toEqual([]);
    expect(
      findMisspeltPins(['RHCOS_RHEL_10_BUILDNAME', 'RHCOS_RHEL_10_BASE_ULR', 'RHCOS_RHEL_10_CHANNEL', 'rhcos_rhel_10_build_name']),
    ).toEqual([
      { name: 'RHCOS_RHEL_10_BUILDNAME', suggestion: 'RHCOS_RHEL_10_BUILD_NAME' },
      { name: 'RHCOS_RHEL_10_BASE_ULR', suggestion: 'RHCOS_RHEL_10_BASE_URL' },
      { name: 'RHCOS_RHEL_10_CHANNEL', suggestion: 'RHCOS_RHEL_10_DEFAULT_CHANNEL' },
      { name: 'rhcos_rhel_10_build_name', suggestion: 'RHCOS_RHEL_10_BUILD_NAME' },
    ]);
    const w = misspeltEnvWarnings({ RHCOS_RHEL_10_BUILD_NAME: '10.2.20260217-0', RHCOS_RHEL_10_BUILDNAME: '10.2.20260217-0' });
    expect(w.map((x) => x.message)).toEqual([
      'environment variable RHCOS_RHEL_10_BUILDNAME is set but is not read; did you mean RHCOS_RHEL_10_BUILD_NAME? (osimage reads RHCOS_RHEL_10_BUILD_NAME)',
    ]);
  });
});
