import type { Command } from 'commander';
import type { Warning } from '../errors.js';
import type { SourceOptions } from '../registry/types.js';

export interface RegistryOptionValues {
  registryConfig?: string;
  insecure?: boolean;
  certificateAuthority?: string;
  skipVerification?: boolean;
  filterByOs?: string;
}

/** The registry and image-selection flags oc's release commands take. */
export function addRegistryOptions(cmd: Command): Command {
  return cmd
    .option('-a, --registry-config <file>', 'auth file for the registry (containers auth.json or docker config.json)')
    .option('--insecure', 'allow plain HTTP and unverified TLS for the registry')
    .option('--certificate-authority <file>', 'CA bundle to trust for the registry')
    .option('--skip-verification', 'warn instead of failing when content does not match its digest')
    .option('--filter-by-os <regex>', 'pick this os/arch[/variant] from a manifest list (default linux/amd64)');
}

/** Warnings that mean content did not match its digest or size (let through by --skip-verification). */
const VERIFICATION_FAILURES: ReadonlySet<Warning['code']> = new Set(['digest-mismatch', 'size-mismatch']);

/** SourceOptions from the flags; warnings and progress go to stderr. Commands use it through readImages (open-image.ts). */
export async function sourceOptions(o: RegistryOptionValues, state: { verificationFailed: boolean }) {
  const { warn } = await import('../output/terminal.js');
  const { progressBar } = await import('../output/progress.js');
  const progress = progressBar();
  const opts: SourceOptions = {
    ...(o.registryConfig !== undefined ? { registryConfig: o.registryConfig } : {}),
    ...(o.insecure ? { insecure: true } : {}),
    ...(o.certificateAuthority !== undefined ? { caFile: o.certificateAuthority } : {}),
    ...(o.skipVerification ? { skipVerification: true } : {}),
    onWarning: (w: Warning) => {
      progress.done();
      if (VERIFICATION_FAILURES.has(w.code)) state.verificationFailed = true;
      warn(w.message);
    },
    onProgress: (digest: string, done: number, total: number) => progress.update(digest, done, total),
  };
  return { opts, progress };
}
