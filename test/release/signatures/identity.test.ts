/**
 * Identity rules with containers/image's meanings (docs/containers-policy.json.5.md, signedIdentity;
 * signature/policy_reference_match.go): each rule against the image name and a signed identity.
 */
import { describe, expect, test } from 'vitest';
import { checkIdentity, parseIdentityRule } from '../../../src/release/signatures/identity.js';

const REPO = 'quay.io/openshift-release-dev/ocp-release';
const DIGEST = `sha256:${'a'.repeat(64)}`;

const cases: Array<[rule: string, image: string | undefined, signed: string, ok: boolean]> = [
  ['matchExact', `${REPO}:4.17.0`, `${REPO}:4.17.0`, true],
  ['matchExact', `${REPO}:4.17.0`, `${REPO}:4.17.1`, false],
  ['matchExact', `${REPO}@${DIGEST}`, `${REPO}:4.17.0`, false],
  ['matchExact', REPO, REPO, false],
  ['matchRepoDigestOrExact', `${REPO}:4.17.0`, `${REPO}:4.17.0`, true],
  ['matchRepoDigestOrExact', `${REPO}:4.17.0`, `${REPO}:4.17.1`, false],
  ['matchRepoDigestOrExact', `${REPO}@${DIGEST}`, `${REPO}:4.17.0`, true],
  ['matchRepoDigestOrExact', `${REPO}@${DIGEST}`, 'quay.io/other/release:4.17.0', false],
  ['matchRepoDigestOrExact', `${REPO}@${DIGEST}`, REPO, false],
  ['matchRepository', `${REPO}:4.17.0`, `${REPO}:4.99.0`, true],
  ['matchRepository', `${REPO}:4.17.0`, 'quay.io/other/release:4.17.0', false],
  ['matchRepository', 'busybox:1', 'docker.io/library/busybox:2', true],
  [`exactReference=${REPO}:4.17.0`, undefined, `${REPO}:4.17.0`, true],
  [`exactReference=${REPO}:4.17.0`, 'mirror.example.com/x:1', `${REPO}:4.17.1`, false],
  [`exactRepository=${REPO}`, 'mirror.example.com/x:1', `${REPO}:4.17.1`, true],
  [`exactRepository=${REPO}`, undefined, 'quay.io/other/release:4.17.1', false],
  [
    `remapIdentity=mirror.example.com/ocp,quay.io/openshift-release-dev`,
    'mirror.example.com/ocp/ocp-release:4.17.0',
    `${REPO}:4.17.0`,
    true,
  ],
  [
    `remapIdentity=mirror.example.com/ocp,quay.io/openshift-release-dev`,
    'mirror.example.com/ocp/ocp-release:4.17.0',
    `${REPO}:4.17.1`,
    false,
  ],
  // The prefix ends at a component boundary: ocp does not match ocpx.
  [
    `remapIdentity=mirror.example.com/ocp,quay.io/openshift-release-dev`,
    'mirror.example.com/ocpx/ocp-release:4.17.0',
    'quay.io/openshift-release-devx/ocp-release:4.17.0',
    false,
  ],
  ['matchRepository', undefined, `${REPO}:4.17.0`, false],
  // cosign signs the repository alone: only the repository rules take it.
  ['matchRepository', `${REPO}:4.17.0`, REPO, true],
  [`exactRepository=${REPO}`, undefined, REPO, true],
  [`exactReference=${REPO}:latest`, undefined, REPO, false],
  ['matchExact', `${REPO}:latest`, REPO, false],
];

describe('identity rules', () => {
  test.each(cases)('%s: image %s, signed %s -> %s', (rule, image, signed, ok) => {
    const why = checkIdentity(parseIdentityRule(rule), image, signed);
    if (ok) expect(why).toBeUndefined();
    else expect(why).toEqual(expect.any(String));
  });

  test('bad rules are usage errors', () => {
    expect(() => parseIdentityRule('matchAll')).toThrow(/unknown rule "matchAll"/);
    expect(() => parseIdentityRule('exactReference')).toThrow(/needs REF/);
    expect(() => parseIdentityRule(`exactReference=${REPO}`)).toThrow(/needs a tag or a digest/);
    expect(() => parseIdentityRule('remapIdentity=a')).toThrow(/PREFIX,SIGNED_PREFIX/);
    expect(() => parseIdentityRule('matchExact=x')).toThrow(/takes no argument/);
  });
});
