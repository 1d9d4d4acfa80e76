#!/usr/bin/env node
// Runs osimage (the built bin/osimage) for every pair of pairs.yaml against the same image set and compares it
// with oc's recorded output (test/fixtures/oc/, written by record.mjs), after templating. Prints each pair's
// class and the count:
//
//   identical   stdout, stderr, exit code (and written files) equal oc's
//   documented  a deliberate difference (docs/release.md, "Differences from oc"), the rest (`same:`) equal
//   oc-quirk    oc's behaviour is a bug not copied, the rest (`same:`) equal
//   wrong       anything else
//
//   npm run build && node hack/oc-compare/compare.mjs [-v] [--bin PATH] [NAME...]
//
// -v: the first differing line of each pair that is not identical; --bin: another build's bin/osimage (e.g. an
// older commit's, for a before/after count); NAME: only these pairs.
import { execFile } from 'node:child_process';
import { withVariables } from './access.mjs';
import { classify, osimageEnv, loadPairs, readFixture, REPO, runPair, startEnvironment } from './lib.mjs';

const argv = process.argv.slice(2);
const binAt = argv.indexOf('--bin');
const BIN = binAt >= 0 ? argv.splice(binAt, 2)[1] : `${REPO}bin/osimage`;
const verbose = argv.includes('-v');
const only = new Set(argv.filter((a) => a !== '-v'));

const runOsimage = (args, _dir, vars = {}) =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'release', ...args],
      { cwd: REPO, env: withVariables(osimageEnv(), vars), timeout: 120_000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => resolve({ stdout, stderr, exitCode: err ? (typeof err.code === 'number' ? err.code : -1) : 0 }),
    );
  });

/** The first line where a and b differ, both sides, for -v. */
function firstDiff(a, b) {
  const x = String(a).split('\n');
  const y = String(b).split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if (x[i] !== y[i])
      return `line ${i + 1}\n        oc:      ${JSON.stringify(x[i] ?? null)}\n        osimage: ${JSON.stringify(y[i] ?? null)}`;
  return '';
}

const pairs = (await loadPairs()).filter((p) => only.size === 0 || only.has(p.name));
const env = await startEnvironment();
const counts = { identical: 0, documented: 0, 'oc-quirk': 0, wrong: 0 };
try {
  for (const pair of pairs) {
    const oc = await readFixture(pair.name);
    const ours = await runPair(pair, env, runOsimage);
    const { cls, diff } = classify(pair, oc, ours);
    counts[cls]++;
    const note = cls === 'identical' ? '' : `  differs: ${diff.join(', ')}${cls === pair.expect ? '' : ` (expected ${pair.expect})`}`;
    console.log(`${cls.padEnd(10)}  ${pair.name}${note}`);
    if (verbose && cls !== 'identical')
      for (const k of diff)
        console.log(
          `      ${k}: ${k === 'exitCode' ? `oc ${oc.exitCode}, osimage ${ours.exitCode}` : firstDiff(k === 'files' ? JSON.stringify(oc.files, null, 1) : oc[k], k === 'files' ? JSON.stringify(ours.files, null, 1) : ours[k])}`,
        );
  }
} finally {
  await env.stop();
}
console.log(
  `\n${pairs.length} pairs: ${counts.identical} identical, ${counts.documented} documented, ${counts['oc-quirk']} oc-quirk, ${counts.wrong} wrong`,
);
