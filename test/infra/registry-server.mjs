/**
 * Starting and stopping the real distribution registry (Debian package docker-registry,
 * /usr/bin/docker-registry) on 127.0.0.1 with a config written into a folder the caller owns. No test
 * framework here: test/helpers/registry.ts (tests, with auth modes), hack/bench (benchmarks) and hack/oc-compare use it.
 * Types: registry-server.d.mts.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';

export const REGISTRY_BIN = process.env.OSIMAGE_TEST_REGISTRY_BIN ?? '/usr/bin/docker-registry';

/** A free TCP port on 127.0.0.1 (the registry needs an explicit address). */
export async function freePort() {
  const srv = createNetServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(() => r()));
  return port;
}

/** The registry's config.yml: filesystem storage in dataDir, deletes allowed, no upload purging, `auth` (YAML lines) as given. */
export function registryConfigYaml({ port, dataDir, auth = '', logLevel = 'info' }) {
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
    auth,
    '',
  ].join('\n');
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
      const res = await fetch(`${url}/v2/`);
      await res.arrayBuffer();
      if (res.status === 200 || res.status === 401) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`docker-registry did not answer on ${url} within 20 s:\n${await readFile(logFile, 'utf8').catch(() => '')}`);
}

/**
 * Start docker-registry serving `dir/data` (or `dataDir`), with config `dir/config.yml` and its log in
 * `dir/registry.log`. Retries on another port when the one picked was taken meanwhile. `stop()` ends the
 * process (SIGTERM, then SIGKILL after 5 s); removing `dir` is the caller's job.
 */
export async function startRegistryServer({ dir, dataDir = join(dir, 'data'), auth = '', logLevel = 'info' }) {
  const logFile = join(dir, 'registry.log');
  const configPath = join(dir, 'config.yml');
  let lastErr;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    await writeFile(configPath, registryConfigYaml({ port, dataDir, auth, logLevel }));
    const fd = openSync(logFile, 'a');
    const child = spawn(REGISTRY_BIN, ['serve', configPath], { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const url = `http://127.0.0.1:${port}`;
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
