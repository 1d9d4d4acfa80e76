/**
 * `release new --to-image` pushes an image's blobs at once, not one after the other: each blob's existence check
 * (HEAD) is held by a proxy until a second one is in flight, so a push that waits for each blob before the next
 * is seen (it would reach the proxy's give-up time with one request in hand). The image is complete either way.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { osimage } from '../../helpers/cli.js';
import { startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy.js';
import { baseEntries, image, pushBuilt } from '../../helpers/oci-builder.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../../helpers/registry.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/release-new/payload', import.meta.url));
let reg: TestRegistry | undefined;
let proxy: FaultProxy | undefined;
printLogsOnFailure(() => reg);

/** The most blob HEADs held at once, and the held ones' release. */
let held: Array<() => void> = [];
let most = 0;

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  const base = await image([{ entries: baseEntries() }, { entries: [{ name: 'usr/share/doc/cvo', data: 'second base layer' }] }]);
  await pushBuilt(`${reg.host}/ocp/cvo:base`, base);
  proxy = await startFaultProxy(reg.url);
  proxy.fault({
    path: /^\/v2\/ocp\/release\/blobs\/sha256:/,
    method: 'HEAD',
    times: Number.POSITIVE_INFINITY,
    action: {
      respond: (_req, res) =>
        new Promise<void>((resolve) => {
          const answer = () => {
            // Not there yet: the client goes on to mount or upload it.
            res.writeHead(404).end();
            resolve();
          };
          held.push(answer);
          most = Math.max(most, held.length);
          if (held.length >= 2) {
            const all = held;
            held = [];
            for (const a of all) a();
          } else {
            // A push that sends one HEAD at a time gets its answer at last, and the test sees `most` of 1.
            setTimeout(() => {
              if (held.includes(answer)) {
                held = held.filter((a) => a !== answer);
                answer();
              }
            }, 1500);
          }
        }),
    },
  });
});
afterAll(async () => {
  await proxy?.close();
  await reg?.stop();
});

it('checks and sends the base layers, the release layer and the config at once, then the manifest', async () => {
  const r = await osimage([
    'release',
    'new',
    '--insecure',
    '--from-dir',
    FIXTURE,
    '--name',
    '4.99.0',
    '--to-image-base',
    `${proxy!.host}/ocp/cvo:base`,
    '--to-image',
    `${proxy!.host}/ocp/release:4.99.0`,
  ]);
  expect(r.stderr).not.toMatch(/error/);
  expect(r.exitCode).toBe(0);
  expect(most).toBeGreaterThanOrEqual(2);
  // The manifest went last, once every blob was there: the registry took it (it refuses one naming a missing blob).
  const puts = proxy!.requests.filter((q) => q.method === 'PUT');
  expect(puts.at(-1)?.url).toBe('/v2/ocp/release/manifests/4.99.0');
  expect(puts.at(-1)?.status).toBe(201);
  const info = await osimage(['release', 'info', '--insecure', `${reg!.host}/ocp/release:4.99.0`]);
  expect(info.exitCode).toBe(0);
});
