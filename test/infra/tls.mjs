/**
 * A certificate authority of its own for a TLS server on 127.0.0.1 (openssl): a self-signed CA certificate and a
 * server certificate it signed, as a private registry's operator makes them. Clients trust the server only when
 * given `ca.crt` (or told not to verify). No test framework here: test/helpers/registry.ts and hack/oc-compare use
 * it. Types: tls.d.mts.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const openssl = (args) => promisify(execFile)('openssl', args);

/**
 * Write `ca.crt`/`ca.key` and `server.crt`/`server.key` (P-256, two days) into `dir`; the server certificate is
 * for IP 127.0.0.1 and DNS localhost. Returns the paths.
 */
export async function testCertificateAuthority(dir, { subject = 'osimage test CA' } = {}) {
  const p = (name) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl([
    'req',
    '-x509',
    ...ec,
    '-days',
    '2',
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.crt'),
    '-subj',
    `/CN=${subject}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await openssl(['req', ...ec, '-keyout', p('server.key'), '-out', p('server.csr'), '-subj', '/CN=127.0.0.1']);
  // Go and Node both check the SAN, not the CN; extendedKeyUsage serverAuth is what Go's verifier asks of a leaf.
  await writeFile(
    p('server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  await openssl([
    'x509',
    '-req',
    '-in',
    p('server.csr'),
    '-CA',
    p('ca.crt'),
    '-CAkey',
    p('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    p('server.ext'),
    '-out',
    p('server.crt'),
  ]);
  return { caFile: p('ca.crt'), certFile: p('server.crt'), keyFile: p('server.key') };
}
