/**
 * Starting and stopping the real distribution registry (Debian package docker-registry,
 * /usr/bin/docker-registry) on 127.0.0.1 with a config written into a folder the caller owns. No test
 * framework here: test/helpers/registry.ts (tests, with auth modes), hack/bench (benchmarks) and hack/oc-compare use it.
 * Types: registry-server.d.mts.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const REGISTRY_BIN = process.env.OSIMAGE_TEST_REGISTRY_BIN ?? '/usr/bin/docker-registry';

/** A free TCP port on 127.0.0.1 (the registry needs an explicit address). */
export async function freePort() {
  const srv = createNetServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(() => r()));
  return port;
}

/**
 * The registry's config.yml: filesystem storage in dataDir, deletes allowed, no upload purging, `auth` (YAML lines)
 * as given, and HTTPS with `tls: {certFile, keyFile}`.
 */
export function registryConfigYaml({ port, dataDir, auth = '', logLevel = 'info', tls }) {
  return [
    'version: 0.1',
    'log:',
    `  level: ${logLevel}`,
    '  formatter: text',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${JSON.stringify(dataDir)}`,
    '  delete:',
    '    enabled: true',
    '  maintenance:',
    '    uploadpurging:',
    '      enabled: false',
    'http:',
    `  addr: 127.0.0.1:${port}`,
    `  secret: ${randomBytes(16).toString('hex')}`,
    ...(tls ? ['  tls:', `    certificate: ${JSON.stringify(tls.certFile)}`, `    key: ${JSON.stringify(tls.keyFile)}`] : []),
    auth,
    '',
  ].join('\n');
}

/**
 * The `auth:` section for Basic auth with these users ({name: password}): a bcrypt htpasswd file (`htpasswd -B`,
 * Debian package apache2-utils; cost 4, as tests need no strength) written into `dir`.
 */
export async function htpasswdAuth(dir, users) {
  const lines = [];
  for (const [u, p] of Object.entries(users)) {
    const { stdout } = await promisify(execFile)('htpasswd', ['-nbB', '-C', '4', u, p]);
    lines.push(stdout.trim());
  }
  const path = join(dir, 'htpasswd');
  await writeFile(path, `${lines.join('\n')}\n`);
  return ['auth:', '  htpasswd:', '    realm: osimage-test', `    path: ${JSON.stringify(path)}`].join('\n');
}

/** The status of `GET url`; over https the certificate is not checked (this only asks whether the server is up). */
async function probe(url) {
  if (!url.startsWith('https:')) {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.status;
  }
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end();
  });
}

async function waitReady(url, child, logFile) {
  const deadline = Date.now() + 20_000;
  let exited = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  while (Date.now() < deadline) {
    if (exited !== null)
      throw new Error(`docker-registry exited (${exited}) during startup:\n${await readFile(logFile, 'utf8').catch(() => '')}`);
    try {
      const status = await probe(`${url}/v2/`);
      if (status === 200 || status === 401) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`docker-registry did not answer on ${url} within 20 s:\n${await readFile(logFile, 'utf8').catch(() => '')}`);
}

/**
 * Start docker-registry serving `dir/data` (or `dataDir`), with config `dir/config.yml` and its log in
 * `dir/registry.log`; over HTTPS with `tls` (see registryConfigYaml). Retries on another port when the one picked
 * was taken meanwhile. `stop()` ends the process (SIGTERM, then SIGKILL after 5 s); removing `dir` is the caller's job.
 */
export async function startRegistryServer({ dir, dataDir = join(dir, 'data'), auth = '', logLevel = 'info', tls }) {
  const logFile = join(dir, 'registry.log');
  const configPath = join(dir, 'config.yml');
  let lastErr;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    await writeFile(configPath, registryConfigYaml({ port, dataDir, auth, logLevel, tls }));
    const fd = openSync(logFile, 'a');
    const child = spawn(REGISTRY_BIN, ['serve', configPath], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
    try {
      await waitReady(url, child, logFile);
    } catch (err) {
      lastErr = err;
      child.kill('SIGKILL');
      if (/address already in use/.test(String(err))) continue;
      throw err;
    }
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', () => r()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    };
    return {
      url,
      host: `127.0.0.1:${port}`,
      port,
      pid: child.pid,
      dataDir,
      logs: () => readFile(logFile, 'utf8').catch(() => ''),
      stop,
    };
  }
  throw lastErr;
}
