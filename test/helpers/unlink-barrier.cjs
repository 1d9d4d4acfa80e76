// Preloaded into osimage subprocesses (NODE_OPTIONS=--require) to force a race: the first unlink() a process makes
// waits until every process of the group has reached its own first unlink(), so all of them have read the folder
// and chosen what to delete before any of them deletes. Each arrival is a file named by pid in
// OSIMAGE_TEST_BARRIER_DIR, so the test can tell that the overlap happened. OSIMAGE_TEST_BARRIER_COUNT processes
// make a group; a process waits at most 20 s (then goes on, and the test sees a missing arrival).
const fs = require('node:fs');
const { syncBuiltinESMExports } = require('node:module');
const { join } = require('node:path');

const dir = process.env.OSIMAGE_TEST_BARRIER_DIR;
const count = Number(process.env.OSIMAGE_TEST_BARRIER_COUNT ?? '2');

if (dir) {
  const promises = require('node:fs/promises');
  const unlink = promises.unlink;
  let arrived;
  const arrive = async () => {
    fs.writeFileSync(join(dir, String(process.pid)), '');
    const until = Date.now() + 20_000;
    while (fs.readdirSync(dir).length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  };
  promises.unlink = async (...args) => {
    arrived ??= arrive();
    await arrived;
    return unlink(...args);
  };
  syncBuiltinESMExports();
}
