/** RHCOS architectures as image platforms (x86_64 → linux/amd64, aarch64 → linux/arm64, …). */
const PLATFORMS: Record<string, string> = {
  x86_64: 'linux/amd64',
  aarch64: 'linux/arm64',
  ppc64le: 'linux/ppc64le',
  s390x: 'linux/s390x',
};

export function platformForArch(arch: string): string {
  return PLATFORMS[arch] ?? `linux/${arch}`;
}
