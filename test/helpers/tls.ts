import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface SelfSigned {
  /** The certificate, which is also its own CA: `<dir>/ca.crt`. */
  caFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
}

/** A self-signed certificate for 127.0.0.1 (openssl, EC P-256, two days), written into `dir`. */
export async function selfSignedCert(dir: string): Promise<SelfSigned> {
  const caFile = join(dir, 'ca.crt');
  const keyFile = join(dir, 'tls.key');
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
    caFile,
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  return { caFile, keyFile, cert: await readFile(caFile), key: await readFile(keyFile) };
}
