/** A release browser for verify tests: one channel, x86_64 builds whose meta.json carries the given containers. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Write `root/channel/builds.json` and each build's `x86_64/meta.json` (`buildid` + the build's containers). */
export async function writeX86Browser(root: string, channel: string, metas: Record<string, Record<string, unknown>>): Promise<void> {
  const dir = join(root, channel);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'builds.json'),
    JSON.stringify({ 'schema-version': '1.0.0', builds: Object.keys(metas).map((id) => ({ id, arches: ['x86_64'] })) }),
  );
  for (const [id, containers] of Object.entries(metas)) {
    await mkdir(join(dir, id, 'x86_64'), { recursive: true });
    await writeFile(join(dir, id, 'x86_64', 'meta.json'), JSON.stringify({ buildid: id, ...containers }, null, 2));
  }
}
