/**
 * A pushed sigstore signature checked independently of osimage's reading code: the `sha256-<hex>.sig` manifest and
 * its layer fetched over plain HTTP from the registry, the layer's bytes against its digest, then the signature
 * in the layer's `dev.cosignproject.cosign/signature` annotation over those bytes with `openssl dgst -verify`
 * (cosign's simple signing: one layer holding the claim).
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';

const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

interface SigLayer {
  mediaType: string;
  digest: string;
  annotations: Record<string, string>;
}

async function registryGet(registryUrl: string, path: string, accept: string): Promise<Buffer> {
  const res = await fetch(`${registryUrl}/v2/${path}`, { headers: { accept } });
  expect(res.status, path).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/**
 * Check the .sig of `digest` in `repo` with the PEM public key `pub` (files go into `work`); returns the sig
 * manifest's layers and the claim, for the caller's own assertions.
 */
export async function checkPushedSignature(
  registryUrl: string,
  repo: string,
  digest: string,
  pub: string,
  work: string,
): Promise<{ layers: SigLayer[]; claim: { critical: Record<string, unknown>; optional?: unknown } }> {
  const manifest = JSON.parse(
    (await registryGet(registryUrl, `${repo}/manifests/${digest.replace(':', '-')}.sig`, OCI_MANIFEST)).toString(),
  );
  const layers = manifest.layers as SigLayer[];
  const [layer] = layers;
  const payload = await registryGet(registryUrl, `${repo}/blobs/${layer!.digest}`, '*/*');
  expect(`sha256:${createHash('sha256').update(payload).digest('hex')}`).toBe(layer!.digest);
  const claim = JSON.parse(payload.toString());
  expect(claim.critical.image['docker-manifest-digest']).toBe(digest);
  await writeFile(join(work, 'payload'), payload);
  await writeFile(join(work, 'payload.sig'), Buffer.from(layer!.annotations['dev.cosignproject.cosign/signature']!, 'base64'));
  const ok = await execa('openssl', ['dgst', '-sha256', '-verify', pub, '-signature', join(work, 'payload.sig'), join(work, 'payload')], {
    reject: false,
  });
  expect(ok.stdout).toBe('Verified OK');
  return { layers, claim };
}
