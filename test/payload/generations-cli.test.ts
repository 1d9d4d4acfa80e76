/** osimage payload write on the generation samples, through the CLI, with a release browser of our own on disk. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { osimage } from '../helpers/cli.js';
import { BASE, EXT, generation, metaJson, OSC, releaseBrowser } from './generations-helpers.js';
import { cleanup, read, snapshot, U, W } from './helpers.js';

// made for each test: cleanup() removes every temp folder after each
let browser: string;
beforeEach(async () => {
  browser = await releaseBrowser({
    '4.18-9.4/builds': [
      { id: '418.94.202605101521-0', meta: metaJson('418.94.202605101521-0', ['base-oscontainer', 'extensions-container']) },
    ],
    'rhcos-4.13': [
      { id: '413.92.202305231734-0', meta: metaJson('413.92.202305231734-0', ['oscontainer', 'base-oscontainer', 'extensions-container']) },
    ],
    'rhel-10.2/builds': [{ id: '10.2.20260217-0', meta: metaJson('10.2.20260217-0', ['base-oscontainer', 'extensions-container']) }],
  });
});

const CM80 = '0000_80_machine-config-operator_05_osimageurl.yaml';

describe('osimage payload write, generation by generation', () => {
  it('2019-04: --os-image updates the 0000_80 ConfigMap in place (no second 0000_30 file)', async () => {
    const dir = await generation('2019-04-0000_80');
    const r = await osimage(['payload', 'write', '--dir', dir, '--os-image', U]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(
      `${join(dir, CM80)}: data.osImageURL updated (was registry.svc.ci.openshift.org/openshift/origin-v4.0@sha256:`,
    );
    expect((await readdir(dir)).sort()).toEqual([CM80, 'image-references']);
  });

  it('4.13 mixed: one build into all three tags and keys, then unchanged', async () => {
    const dir = await generation('4.13-mixed');
    const args = ['payload', 'write', '--dir', dir, '--base-url', browser, '--channel', 'rhcos-4.13'];
    const r = await osimage(args);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`base-oscontainer of build 413.92.202305231734-0 (x86_64) for rhel-coreos: ${BASE}`);
    expect(r.stdout).toContain('(mixed)');
    expect(r.stdout).toContain(
      `  tag machine-os-content updated (was placeholder.url.oc.will.replace.this.org/placeholdernamespace:machine-os-content): ${OSC}`,
    );
    expect(r.stdout).toContain(
      '  data.osImageURL updated (was placeholder.url.oc.will.replace.this.org/placeholdernamespace:machine-os-content) (= tag machine-os-content)',
    );
    const files = await snapshot(dir);
    const again = await osimage(args);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe(`unchanged: ${join(dir, 'image-references')} and ${join(dir, CM80)} already hold these images (mixed)`);
    expect(await snapshot(dir)).toEqual(files);
  });

  it('4.15 layered: base-oscontainer and extensions-container; osImageURL stays ""', async () => {
    const dir = await generation('4.15-layered');
    const r = await osimage(['payload', 'write', '--dir', dir, '--base-url', browser, '--channel', '4.18-9.4/builds']);
    expect(r.exitCode).toBe(0);
    expect(parse(await read(join(dir, CM80))).data).toEqual({
      releaseVersion: '0.0.1-snapshot',
      baseOSContainerImage: BASE,
      baseOSExtensionsContainerImage: EXT,
      osImageURL: '',
    });
  });

  it("4.21 --os-stream rhel-10 resolves its own pins (RHCOS_RHEL_10_*), not the default stream's", async () => {
    const dir = await generation('4.21-two-streams');
    const r = await osimage(['payload', 'write', '--dir', dir, '--os-stream', 'rhel-10'], {
      env: {
        RHCOS_BUILD_NAME: '418.94.202605101521-0',
        RHCOS_RHEL_10_BASE_URL: browser,
        RHCOS_RHEL_10_DEFAULT_CHANNEL: 'rhel-10.2/builds',
      },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('base-oscontainer of build 10.2.20260217-0 (x86_64) for rhel-coreos-10');
    expect(r.stdout).toContain('ConfigMap: left alone');
    const tags = parse(await read(join(dir, 'image-references'))).spec.tags as Array<{ name: string; from: { name: string } }>;
    expect(tags.find((t) => t.name === 'rhel-coreos-10')!.from.name).toBe(BASE);
  });

  it('4.19 --node-image without --extensions-image is a usage error; with both it writes them', async () => {
    const dir = await generation('4.19-node-image');
    const bad = await osimage(['payload', 'write', '--dir', dir, '--node-image', '--os-image', U]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--node-image needs --os-image and --extensions-image');
    const r = await osimage(['payload', 'write', '--dir', dir, '--node-image', '--os-image', U, '--extensions-image', W]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(
      `  tag rhel-coreos updated (was placeholder.url.oc.will.replace.this.org/placeholdernamespace:rhel-coreos): ${U}`,
    );
  });
});

afterEach(cleanup);
