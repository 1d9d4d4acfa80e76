/**
 * Running a command and measuring it: wall time (spawn to exit, in the parent), peak RSS and CPU time. Peak
 * RSS and CPU time come from GNU time (`/usr/bin/time -f '%U %S %M'`: the kernel's rusage of the child) when
 * it is installed; without it, peak RSS comes from polling /proc/<pid>/status VmHWM every 5 ms (it may miss
 * a peak in the last few ms) and CPU time is not known.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export const GNU_TIME = '/usr/bin/time';
export const HAVE_GNU_TIME = existsSync(GNU_TIME);
export const RSS_METHOD = HAVE_GNU_TIME ? '`/usr/bin/time -f %M` (ru_maxrss)' : '/proc/PID/status VmHWM, polled every 5 ms';

/** Children currently running, so an interrupted bench can end them. */
export const running = new Set();

function collect(stream, keep, seen) {
  const chunks = [];
  stream?.on('data', (c) => {
    seen();
    if (keep) chunks.push(c);
  });
  return () => Buffer.concat(chunks).toString('utf8');
}

/**
 * Run `cmd args` and resolve {wallMs, rssKiB, cpuMs, tailMs, code, stdout, stderr} (tailMs: last output to exit). `rss: false` skips the wrapper
 * (then neither RSS nor CPU time is known). `tmp` is a folder for GNU time's output file.
 */
export async function run(cmd, args, { env, cwd, rss = true, tmp, keepStdout = true } = {}) {
  const useTime = rss && HAVE_GNU_TIME;
  const timeOut = useTime ? join(tmp, `time-${process.pid}-${Math.random().toString(36).slice(2)}.txt`) : undefined;
  const [file, argv] = useTime ? [GNU_TIME, ['-f', '%U %S %M', '-o', timeOut, cmd, ...args]] : [cmd, args];
  const start = process.hrtime.bigint();
  const child = spawn(file, argv, { env: env ?? process.env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  // The tail: from the last output chunk to the child's exit (the answer is out, the process lingers).
  let lastOutput;
  let exited;
  const seen = () => (lastOutput = process.hrtime.bigint());
  child.once('exit', () => (exited = process.hrtime.bigint()));
  const out = collect(child.stdout, keepStdout, seen);
  const err = collect(child.stderr, true, seen);
  let hwm = 0;
  let poll;
  if (rss && !useTime) {
    poll = setInterval(async () => {
      const s = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
      const m = /VmHWM:\s+(\d+) kB/.exec(s);
      if (m) hwm = Math.max(hwm, Number(m[1]));
    }, 5);
  }
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c, sig) => resolve(c ?? (sig ? 128 : 1)));
  });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  running.delete(child);
  if (poll) clearInterval(poll);
  let rssKiB;
  let cpuMs;
  if (useTime) {
    const text = await readFile(timeOut, 'utf8').catch(() => '');
    await rm(timeOut, { force: true });
    // The last line is ours; a line before it may say the command exited non-zero or was killed.
    const [user, sys, maxrss] = (text.trim().split('\n').pop() ?? '').split(' ').map(Number);
    if (Number.isFinite(maxrss)) rssKiB = maxrss;
    if (Number.isFinite(user) && Number.isFinite(sys)) cpuMs = (user + sys) * 1000;
  } else if (rss) {
    rssKiB = hwm || undefined;
  }
  const tailMs = lastOutput !== undefined && exited !== undefined ? Math.max(0, Number(exited - lastOutput) / 1e6) : undefined;
  return { wallMs, rssKiB, cpuMs, tailMs, code, stdout: out(), stderr: err() };
}

export function median(values) {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/**
 * Run each of `jobs` (name → async () => {wallMs, rssKiB}) `runs` times, alternating the order every round
 * (A B, B A, A B, …) so drift in machine load hits both alike, after `warmup` untimed rounds.
 * Returns name → list of samples.
 */
export async function alternate(jobs, { runs, warmup = 1, onRound = () => undefined }) {
  const names = Object.keys(jobs);
  for (let w = 0; w < warmup; w++) for (const n of names) await jobs[n]();
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < runs; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const n of order) samples[n].push(await jobs[n]());
    onRound(r + 1);
  }
  return samples;
}
