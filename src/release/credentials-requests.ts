/**
 * `release extract --credentials-requests [--cloud NAME]`: the CredentialsRequest manifests of a release (what
 * `ccoctl` and a cluster in manual credentials mode need), each manifest file that holds one written under DIR
 * with only its CredentialsRequests, as oc writes them: every object as `---` and its YAML (keys sorted, go-yaml
 * v2's styles: golang/yaml-v2.ts). With --cloud, only the requests whose `spec.providerSpec.kind` is that cloud's.
 *
 * Every manifest (`*.yaml`, `*.yml`, `*.json`) of release-manifests/ is read, top layer first, and must parse: a
 * manifest that does not is an error, as in oc, even when it holds no CredentialsRequest.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import type { Document } from 'yaml';
import { OsimageError, UsageError, describe } from '../errors.js';
import { writeFileAtomic } from '../files/atomic.js';
import { parseYamlDocuments, yamlValue } from '../files/yaml.js';
import { marshalYamlV2 } from '../golang/yaml-v2.js';
import { isJsonObject } from '../json.js';
import { resolveImage, type ResolvedImage } from '../registry/platform.js';
import type { ImageConfig, ImageSource } from '../registry/types.js';
import { RELEASE_FOLDER, readImageConfig } from './info.js';
import { walkLayers } from './overlay.js';

/** --cloud values and the providerSpec kind each one selects (oc's table). */
export const CLOUD_PROVIDER_SPEC_KINDS: Readonly<Record<string, string>> = {
  alibabacloud: 'AlibabaCloudProviderSpec',
  aws: 'AWSProviderSpec',
  azure: 'AzureProviderSpec',
  gcp: 'GCPProviderSpec',
  ibmcloud: 'IBMCloudProviderSpec',
  nutanix: 'NutanixProviderSpec',
  openstack: 'OpenStackProviderSpec',
  ovirt: 'OvirtProviderSpec',
  powervs: 'IBMCloudPowerVSProviderSpec',
  vsphere: 'VSphereProviderSpec',
};

const CREDENTIALS_REQUEST = { group: 'cloudcredential.openshift.io', version: 'v1', kind: 'CredentialsRequest' };
const MANIFEST_EXT = new Set(['.yaml', '.yml', '.json']);

/** oc's check of --cloud; the list is Go's `%v` of the names (oc's own order varies from run to run). */
export function checkCloud(cloud: string | undefined, credentialsRequests: boolean): void {
  if (cloud === undefined || cloud === '') return;
  if (!credentialsRequests) throw new UsageError('--cloud is only supported with --credentials-requests');
  if (!(cloud in CLOUD_PROVIDER_SPEC_KINDS)) {
    throw new UsageError(`--cloud value not recognized, must be one of: [${Object.keys(CLOUD_PROVIDER_SPEC_KINDS).sort().join(' ')}]`);
  }
}

/** The YAML 1.1 reading go-yaml v2 gives plain scalars (yes/no/on/off are booleans, 0777 octal), without timestamps. */
const GO_YAML_READING = {
  version: '1.1' as const,
  customTags: (tags: unknown[]) => tags.filter((t) => (t as { tag?: string }).tag !== 'tag:yaml.org,2002:timestamp'),
};

interface Manifest {
  value: Record<string, unknown>;
  group: string;
  version: string;
  kind: string;
}

/** The objects of one manifest file, as oc's manifest reader takes them (empty documents skipped). */
export function parseManifests(name: string, data: Buffer): Manifest[] {
  const text = data.toString('utf8');
  let docs: Document.Parsed[];
  try {
    docs = parseYamlDocuments(text, name, GO_YAML_READING as Parameters<typeof parseYamlDocuments>[2]);
  } catch (err) {
    throw new OsimageError(`error parsing ${name}: ${describe(err)}`);
  }
  const out: Manifest[] = [];
  const seen = new Set<string>();
  for (const d of docs) {
    let v: unknown;
    try {
      v = yamlValue(d, text, name);
    } catch (err) {
      throw new OsimageError(`error parsing ${name}: ${describe(err)}`);
    }
    if (v === null || v === undefined) continue;
    if (!isJsonObject(v)) throw new OsimageError(`error parsing ${name}: error parsing: unable to decode manifest: not an object`);
    const apiVersion = typeof v.apiVersion === 'string' ? v.apiVersion : '';
    const kind = typeof v.kind === 'string' ? v.kind : '';
    const meta = isJsonObject(v.metadata) ? v.metadata : {};
    const metaName = typeof meta.name === 'string' ? meta.name : '';
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
    if (kind === '') throw new OsimageError(`error parsing ${name}: error parsing: unable to decode manifest: Object 'Kind' is missing`);
    const slash = apiVersion.lastIndexOf('/');
    const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
    const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
    const id = `Group: ${JSON.stringify(group)} Kind: ${JSON.stringify(kind)} Namespace: ${JSON.stringify(namespace)} Name: ${JSON.stringify(metaName)}`;
    if (metaName === '')
      throw new OsimageError(
        `error parsing ${name}: error parsing: Resource with fields ${id} must contain kubernetes required fields kind and name`,
      );
    if (seen.has(id)) throw new OsimageError(`error parsing ${name}: duplicate resource: (${id})`);
    seen.add(id);
    out.push({ value: v as Record<string, unknown>, group, version, kind });
  }
  return out;
}

const isCredentialsRequest = (m: Manifest) =>
  m.group === CREDENTIALS_REQUEST.group && m.version === CREDENTIALS_REQUEST.version && m.kind === CREDENTIALS_REQUEST.kind;

function providerKind(m: Manifest): string | undefined {
  const spec = m.value.spec;
  if (!isJsonObject(spec) || !isJsonObject(spec.providerSpec)) return undefined;
  const kind = spec.providerSpec.kind;
  if (kind !== undefined && typeof kind !== 'string') throw new OsimageError('error extracting cred request kind');
  return kind;
}

/** The text oc writes for the requests of one file: each as `---` and its YAML. */
export function credentialsRequestsText(manifests: Manifest[], cloud?: string): string | undefined {
  const wanted = cloud ? CLOUD_PROVIDER_SPEC_KINDS[cloud] : undefined;
  const picked = manifests.filter((m) => isCredentialsRequest(m) && (wanted === undefined || providerKind(m) === wanted));
  if (picked.length === 0) return undefined;
  return picked.map((m) => `---\n${marshalYamlV2(m.value)}`).join('');
}

export interface CredentialsRequestsResult {
  digest: string;
  listDigest?: string;
  config: ImageConfig;
  files: string[];
}

/** Read the release's manifests and write the files that hold CredentialsRequests under `dir`. */
export async function extractCredentialsRequests(
  source: ImageSource,
  dir: string,
  opts: { cloud?: string; filterByOs?: string },
): Promise<CredentialsRequestsResult> {
  const image: ResolvedImage = await resolveImage(source, opts.filterByOs);
  const manifest = image.manifest.parsed;
  const config = await readImageConfig(source, manifest.config);
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new OsimageError(`cannot create ${dir}: ${describe(err)}`);
  }
  const files: string[] = [];
  let layerDigest = '';
  await walkLayers(source, manifest, {
    folder: RELEASE_FOLDER,
    wantData: (p) => MANIFEST_EXT.has(posix.extname(p)),
    onLayer: (_i, desc) => {
      layerDigest = desc.digest;
    },
    onFile: async (f) => {
      if (f.type !== 'file' || !MANIFEST_EXT.has(posix.extname(f.path))) return;
      let text: string | undefined;
      try {
        text = credentialsRequestsText(parseManifests(f.path, f.data), opts.cloud);
      } catch (err) {
        throw new OsimageError(`unable to iterate over layer ${layerDigest} from ${source.name}: ${describe(err)}`);
      }
      if (text === undefined) return;
      const target = join(dir, ...f.path.split('/'));
      await mkdir(dirname(target), { recursive: true });
      await writeFileAtomic(target, text, { mode: 0o644 });
      files.push(f.path);
    },
  });
  return {
    digest: image.manifest.digest,
    ...(image.list ? { listDigest: image.list.digest } : {}),
    config,
    files,
  };
}
