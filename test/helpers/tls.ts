import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface SelfSigned {
  /** The certificate, which is also its own CA: `<dir>/<name>.crt`. */
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
}

/**
 * A self-signed P-256 certificate (openssl, two days) written into `dir` as `<name>.crt` and `<name>.key`:
 * by default for a TLS server on 127.0.0.1.
 */
export async function selfSignedCert(
  dir: string,
  opts: { name?: string; subject?: string; ipAddress?: string | null } = {},
): Promise<SelfSigned> {
  const name = opts.name ?? 'tls';
  const ip = opts.ipAddress === undefined ? '127.0.0.1' : opts.ipAddress;
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  const san = ip ? ['-addext', `subjectAltName=IP:${ip}`] : [];
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-subj',
    opts.subject ?? `/CN=${ip ?? name}`,
    ...san,
  ]);
  return { certFile, keyFile, cert: await readFile(certFile), key: await readFile(keyFile) };
}
