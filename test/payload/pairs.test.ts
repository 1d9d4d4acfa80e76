/** The ConfigMap's OS keys against their image-references tags, as oc's substitution leaves them. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { checkOsImagePairs } from '../../src/payload/check.js';
import { parseImageStream } from '../../src/payload/image-stream.js';
import { readOperatorDirs } from '../../src/payload/operator-dirs.js';
import { osImagePairProblems } from '../../src/payload/pairs.js';
import { replaceImageReferences } from '../../src/release/new/substitute.js';
import { cleanup, tempDir } from './helpers.js';

afterEach(cleanup);

const P = 'placeholder.url.oc.will.replace.this.org/placeholdernamespace';
const REFS = parseImageStream(
  JSON.stringify({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    spec: {
      tags: ['machine-os-content', 'rhel-coreos-8', 'rhel-coreos-8-extensions'].map((t) => ({
        name: t,
        from: { kind: 'DockerImage', name: `${P}:${t}` },
      })),
    },
  }),
  'refs',
);
const cm = (data: Record<string, string>) =>
  [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: machine-config-osimageurl',
    '  namespace: openshift-machine-config-operator',
    'data:',
    ...Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
    '',
  ].join('\n');
const problems = (text: string) => osImagePairProblems('cm.yaml', text, 'refs', REFS, replaceImageReferences);

describe('osImagePairProblems', () => {
  it('keys holding their tags as text, or empty, are fine', () => {
    expect(
      problems(
        cm({ baseOSContainerImage: `${P}:rhel-coreos-8`, baseOSExtensionsContainerImage: `${P}:rhel-coreos-8-extensions`, osImageURL: '' }),
      ),
    ).toEqual([]);
    expect(problems('kind: Deployment\n')).toEqual([]);
  });

  it('a value folded by a YAML serialiser is not found by the substitution', () => {
    // What re-serialising the whole file did: the yaml package folds long double-quoted values at 80 columns.
    const doc = parseDocument(
      cm({ osImageURL: `${P}:machine-os-content`, baseOperatingSystemExtensionsContainer: `${P}:rhel-coreos-8-extensions` }),
    );
    doc.setIn(['data', 'releaseVersion'], '4.12.0');
    const folded = doc.toString();
    expect(folded).toContain('\\\n');
    // Adding a short key folded both long lines it never meant to touch.
    const found = problems(folded);
    expect(found.map((p) => [p.key, p.tag])).toEqual([
      ['osImageURL', 'machine-os-content'],
      ['baseOperatingSystemExtensionsContainer', 'rhel-coreos-8-extensions'],
    ]);
    expect(found[1]!.message).toMatch(
      /^cm\.yaml: data\.baseOperatingSystemExtensionsContainer holds the from\.name of tag rhel-coreos-8-extensions in refs, but not as one piece of text/,
    );
  });

  it('a from.name without a tag pairs with the same repository by digest, as oc substitutes it', () => {
    const refs = parseImageStream(
      JSON.stringify({
        kind: 'ImageStream',
        apiVersion: 'image.openshift.io/v1',
        spec: { tags: [{ name: 'machine-os-content', from: { kind: 'DockerImage', name: 'quay.io/x/os' } }] },
      }),
      'refs',
    );
    const text = cm({ osImageURL: `quay.io/x/os@sha256:${'a'.repeat(64)}` });
    expect(osImagePairProblems('cm.yaml', text, 'refs', refs, replaceImageReferences)).toEqual([]);
  });

  it('a key holding another image than its tag names both files and values', () => {
    const found = problems(cm({ osImageURL: 'quay.io/x/os@sha256:1', baseOSContainerImage: `${P}:rhel-coreos-8` }));
    expect(found.map((p) => p.message)).toEqual([
      `cm.yaml: data.osImageURL is quay.io/x/os@sha256:1, but tag machine-os-content in refs is ${P}:machine-os-content: oc substitutes both by text, so the release would ship two different OS images; make them equal (osimage payload write does)`,
    ]);
  });
  it("a key holding ANOTHER OS key's kind of image (the extensions image as the OS image) names both files and values", () => {
    const found = problems(
      cm({ baseOSContainerImage: `${P}:rhel-coreos-8-extensions`, baseOSExtensionsContainerImage: `${P}:rhel-coreos-8-extensions` }),
    );
    expect(found.map((p) => p.message)).toEqual([
      `cm.yaml: data.baseOSContainerImage is ${P}:rhel-coreos-8-extensions, the from.name of tag rhel-coreos-8-extensions in refs, but it pairs with tag rhel-coreos-8 (${P}:rhel-coreos-8): the release would ship rhel-coreos-8-extensions's image as baseOSContainerImage`,
    ]);
    // The OS image as the extensions, machine-os-content in a layered key: each is one problem.
    const swapped = problems(
      cm({
        osImageURL: `${P}:machine-os-content`,
        baseOSContainerImage: `${P}:machine-os-content`,
        baseOSExtensionsContainerImage: `${P}:rhel-coreos-8`,
      }),
    );
    expect(swapped.map((p) => [p.key, p.tag])).toEqual([
      ['baseOSContainerImage', 'rhel-coreos-8'],
      ['baseOSExtensionsContainerImage', 'rhel-coreos-8-extensions'],
    ]);
    expect(swapped.every((p) => !p.message.includes('\n'))).toBe(true);
  });

  it('osImageURL may hold the layered OS image, a key another stream of its kind, and a tag osimage does not know passes', () => {
    const refs = parseImageStream(
      JSON.stringify({
        kind: 'ImageStream',
        apiVersion: 'image.openshift.io/v1',
        spec: {
          tags: ['rhel-coreos', 'rhel-coreos-10', 'rhel-coreos-extensions-next'].map((t) => ({
            name: t,
            from: { kind: 'DockerImage', name: `${P}:${t}` },
          })),
        },
      }),
      'refs',
    );
    const text = cm({
      osImageURL: `${P}:rhel-coreos`,
      baseOSContainerImage: `${P}:rhel-coreos-10`,
      baseOSExtensionsContainerImage: `${P}:rhel-coreos-extensions-next`,
    });
    expect(osImagePairProblems('cm.yaml', text, 'refs', refs, replaceImageReferences)).toEqual([]);
  });
});

describe('checkOsImagePairs over operator folders', () => {
  it('finds the ConfigMap by what it is, in any manifest of any operator with image-references', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'mco'));
    await mkdir(join(dir, 'other'));
    await writeFile(join(dir, 'mco', 'image-references'), JSON.stringify(REFS));
    await writeFile(join(dir, 'mco', '0000_80_cm.yaml'), cm({ osImageURL: 'quay.io/x/os@sha256:1' }));
    await writeFile(join(dir, 'other', '0000_50_cm.yaml'), cm({ osImageURL: 'quay.io/x/os@sha256:1' })); // no image-references: oc substitutes nothing there
    const found = await checkOsImagePairs(dir, await readOperatorDirs(dir), replaceImageReferences);
    expect(found.map((p) => [p.operator, p.kind, p.tag])).toEqual([['mco', 'os-image-mismatch', 'machine-os-content']]);
    expect(found[0]!.message).toContain(join(dir, 'mco', '0000_80_cm.yaml'));
    expect(found[0]!.message).toContain(join(dir, 'mco', 'image-references'));
  });
});
