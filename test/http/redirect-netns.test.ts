/**
 * Redirects to link-local and cloud metadata addresses, end to end: the built CLI asks a release browser on
 * 127.0.0.1 for builds.json and is redirected to each spelling. Everything runs inside a network namespace that
 * has only loopback (`unshare -rn`, no root needed), so even if a check failed no packet could leave the machine:
 * the run would then end in a network error instead of the refusal, and the test would fail.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

const probe = spawnSync('unshare', ['-rn', 'ip', 'link', 'set', 'lo', 'up'], { encoding: 'utf8' });
const CAN_UNSHARE = probe.status === 0;
if (!CAN_UNSHARE)
  console.warn(`skipped: unshare -rn with ip is not available here (${(probe.stderr ?? probe.error?.message ?? '').trim()})`);

const LINK_LOCAL = [
  'http://169.254.169.254/latest/meta-data/',
  'http://[::ffff:169.254.0.1]/latest',
  'http://[::ffff:a9fe:1]/',
  'http://[::169.254.0.1]/',
  'http://[fe80::1]/',
  'http://[fe90::1]/x',
  'http://[febf::1]/x',
  'http://[64:ff9b::a9fe:1]/',
  'http://0xa9.0xfe.0.1/',
  'http://2852039169/',
];
const METADATA = ['http://[fd00:ec2::254]/latest/meta-data/', 'http://100.100.100.200/latest/meta-data/', 'http://[64:ff9b:1::6464:64c8]/'];

/** Runs inside the namespace: a release browser that redirects builds.json to each target, and the CLI against it. */
const SCRIPT = `
import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
const [bin, targetsJson] = process.argv.slice(2);
const targets = JSON.parse(targetsJson);
let target = '';
const server = createServer((req, res) => {
  if (req.url === '/ok/c/builds.json') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"schema-version":"1.0.0","builds":[{"id":"1","arches":["x86_64"]}]}');
    return;
  }
  res.writeHead(302, { location: target }).end();
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = 'http://127.0.0.1:' + server.address().port;
const results = [];
// The control: a redirect that stays on loopback is followed.
for (const t of [base + '/ok/c/builds.json', ...targets]) {
  target = t;
  // Asynchronously: the server answers in this process while the CLI runs.
  const r = await new Promise((resolve) =>
    execFile(process.execPath, [bin, 'builds', '--base-url', base + '/a', '--channel', 'c', '-o', 'json'],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, OSIMAGE_CACHE_DIR: process.env.OSIMAGE_CACHE_DIR, NO_COLOR: '1' } },
      (err, _stdout, stderr) => resolve({ target: t, exitCode: err ? err.code : 0, stderr })));
  results.push(r);
}
server.close();
process.stdout.write(JSON.stringify(results));
`;

const work = mkdtempSync(join(tmpdir(), 'osimage-netns-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.runIf(CAN_UNSHARE)('redirects refused end to end, in a namespace with only loopback', () => {
  it('follows a loopback redirect, and refuses every link-local and metadata spelling before connecting', () => {
    const script = join(work, 'redirects.mjs');
    writeFileSync(script, SCRIPT);
    const targets = [...LINK_LOCAL, ...METADATA];
    const r = spawnSync(
      'unshare',
      ['-rn', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, script, BIN, JSON.stringify(targets)],
      { encoding: 'utf8', env: { ...process.env, OSIMAGE_CACHE_DIR: join(work, 'cache') }, timeout: 120_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const results = JSON.parse(r.stdout) as Array<{ target: string; exitCode: number; stderr: string }>;
    const [control, ...refused] = results;
    expect(control!.exitCode, control!.stderr).toBe(0);
    expect(refused.map((x) => x.target)).toEqual(targets);
    for (const x of refused) {
      const kind = METADATA.includes(x.target) ? 'cloud metadata' : 'link-local';
      expect({ target: x.target, exitCode: x.exitCode }).toEqual({ target: x.target, exitCode: 1 });
      expect(x.stderr, x.target).toMatch(new RegExp(`^error: .*refusing redirect to ${kind} address`, 'm'));
      expect(
        x.stderr
          .trimEnd()
          .split('\n')
          .filter((l) => l.startsWith('error:')),
      ).toHaveLength(1);
    }
  });
});
