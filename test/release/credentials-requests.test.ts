/**
 * `release extract --credentials-requests`: which manifests count, --cloud, and oc's errors for manifests that
 * do not parse as Kubernetes objects. The YAML written is compared with oc's in test/oc/side-by-side.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkCloud, credentialsRequestsText, parseManifests } from '../../src/release/credentials-requests.js';

const cr = (name: string, kind: string) =>
  `apiVersion: cloudcredential.openshift.io/v1\nkind: CredentialsRequest\nmetadata:\n  name: ${name}\nspec:\n  providerSpec:\n    kind: ${kind}\n`;

describe('credentials requests', () => {
  it('keeps only CredentialsRequests, and with --cloud only that cloud’s', () => {
    const text = `${cr('a', 'AWSProviderSpec')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\n${cr('g', 'GCPProviderSpec')}---\n`;
    const m = parseManifests('f.yaml', Buffer.from(text));
    expect(m.map((x) => x.kind)).toEqual(['CredentialsRequest', 'ConfigMap', 'CredentialsRequest']);
    expect(credentialsRequestsText(m)).toBe(
      '---\napiVersion: cloudcredential.openshift.io/v1\nkind: CredentialsRequest\nmetadata:\n  name: a\nspec:\n  providerSpec:\n    kind: AWSProviderSpec\n---\napiVersion: cloudcredential.openshift.io/v1\nkind: CredentialsRequest\nmetadata:\n  name: g\nspec:\n  providerSpec:\n    kind: GCPProviderSpec\n',
    );
    expect(credentialsRequestsText(m, 'gcp')).toContain('name: g');
    expect(credentialsRequestsText(m, 'gcp')).not.toContain('name: a');
    expect(credentialsRequestsText(m, 'azure')).toBeUndefined();
  });

  it('reads plain scalars as go-yaml v2 does (yes is a boolean)', () => {
    const m = parseManifests('f.yaml', Buffer.from(`${cr('a', 'AWSProviderSpec')}  enabled: yes\n  mode: 0755\n`));
    expect(m[0]!.value.spec).toEqual({ providerSpec: { kind: 'AWSProviderSpec' }, enabled: true, mode: 493 });
  });

  it('fails on a manifest oc cannot read: no kind, no name, a resource twice, bad YAML', () => {
    expect(() => parseManifests('x.yaml', Buffer.from('apiVersion: v1\nmetadata:\n  name: a\n'))).toThrow(
      "error parsing x.yaml: error parsing: unable to decode manifest: Object 'Kind' is missing",
    );
    expect(() => parseManifests('x.yaml', Buffer.from('apiVersion: v1\nkind: ConfigMap\n'))).toThrow(
      'must contain kubernetes required fields kind and name',
    );
    expect(() => parseManifests('x.yaml', Buffer.from(`${cr('a', 'X')}---\n${cr('a', 'X')}`))).toThrow(
      'error parsing x.yaml: duplicate resource',
    );
    expect(() => parseManifests('x.yaml', Buffer.from('a: [\n'))).toThrow(/^error parsing x\.yaml: /);
  });

  it('checks --cloud as oc does', () => {
    expect(() => checkCloud('aws', false)).toThrow('--cloud is only supported with --credentials-requests');
    expect(() => checkCloud('mars', true)).toThrow(
      '--cloud value not recognized, must be one of: [alibabacloud aws azure gcp ibmcloud nutanix openstack ovirt powervs vsphere]',
    );
    expect(() => checkCloud('vsphere', true)).not.toThrow();
  });
});
