/**
 * hostile files in place of the files osimage edits.
 * - 9: a FIFO (also behind a symlink) is refused at once, naming the file and what it is; never read (a hang).
 * - 17: a symlink (even a dangling one) is kept and its target written; a read-only file is refused.
 * - 18: a multi-file write that fails at any point leaves every folder exactly as it was (no temp files, no backups).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeFilesAtomic } from '../../src/files/atomic.js';
import { editFilesAtomic } from '../../src/files/edit.js';
import { readText } from '../../src/files/read.js';
import { applyPlan, planPin } from '../../src/pin/plan.js';
import { promote } from '../../src/pin/promote.js';
import { writePayload } from '../../src/payload/write.js';
import { osimage } from '../helpers/cli.js';
import { CM_FILE, cleanup, tempDir, U, W } from '../payload/helpers.js';
import { NEWEST_412, sandbox, type Sandbox } from '../pin/setup.js';
import { renameFault } from '../helpers/rename-fault.js';

// A crash before a rename, without a hook in src/ (see the helper).
vi.mock('node:fs/promises', async (real) => (await import('../helpers/rename-fault.js')).withRenameFault(real));

let sb: Sandbox;
let work: string;
let n = 0;
const fifos: string[] = [];

beforeAll(async () => {
  sb = await sandbox();
});
afterAll(async () => {
  await sb.close();
});
beforeEach(async () => {
  work = join(sb.work, `case-${++n}`);
  await mkdir(work);
});
afterEach(async () => {
  delete renameFault.beforeRename;
  // Should a regression block a read on a FIFO, open its other end and close it: the reader gets EOF and the
  // worker is not left with a thread stuck forever.
  for (const f of fifos.splice(0)) {
    try {
      closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader waiting (ENXIO): nothing to release
    }
  }
  await cleanup();
});

function mkfifo(path: string): string {
  execFileSync('mkfifo', [path]);
  fifos.push(path);
  return path;
}

/** Every name in `dir` with its content (or `link -> target`), to compare a folder before and after. */
async function listing(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    const p = join(dir, name);
    const st = await lstat(p);
    out[name] = st.isSymbolicLink() ? `-> ${await readlink(p)}` : st.isDirectory() ? '<dir>' : await readFile(p, 'utf8');
  }
  return out;
}

describe('item 9: a FIFO in place of a file osimage reads', () => {
  it('readText refuses a FIFO, and a symlink to one, naming the file and what it is', { timeout: 5000 }, async () => {
    const fifo = mkfifo(join(work, 'pipe.sh'));
    await expect(readText(fifo)).rejects.toThrow(`${fifo} is a FIFO, not a regular file`);
    await symlink('pipe.sh', join(work, 'link.sh'));
    await expect(readText(join(work, 'link.sh'))).rejects.toThrow(`${join(work, 'link.sh')} is a FIFO, not a regular file`);
  });

  it('pin --write FIFO exits 1 at once with the error, and leaves the FIFO alone', { timeout: 5000 }, async () => {
    const fifo = mkfifo(join(work, 'release.sh'));
    const r = await osimage(['pin', '--write', fifo, '--base-url', sb.server.url]);
    expect(r.stderr).toContain(`error: ${fifo} is a FIFO, not a regular file`);
    expect(r.exitCode).toBe(1);
    expect((await lstat(fifo)).isFIFO()).toBe(true);
  });

  it('pin --meta FIFO is refused too', { timeout: 5000 }, async () => {
    const fifo = mkfifo(join(work, 'rhcos.json'));
    const r = await osimage([
      'pin',
      '--write',
      join(work, 'release.sh'),
      '--meta',
      fifo,
      '--base-url',
      sb.server.url,
      '--channel',
      'maipo',
    ]);
    expect(r.stderr).toContain(`${fifo} is a FIFO, not a regular file`);
    expect(r.exitCode).toBe(1);
    expect(await readdir(work)).toEqual(['rhcos.json']);
  });
});

describe('item 17: symlinks and read-only files as the pin file', () => {
  it('pin --write through a dangling symlink creates the target and keeps the link', async () => {
    await symlink('pins/real.sh', join(work, 'release.sh'));
    await mkdir(join(work, 'pins'));
    const r = await osimage([
      'pin',
      '--write',
      join(work, 'release.sh'),
      '--latest',
      '--base-url',
      sb.server.url,
      '--channel',
      'rhcos-4.12',
    ]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.exitCode).toBe(0);
    expect((await lstat(join(work, 'release.sh'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(work, 'release.sh'))).toBe('pins/real.sh');
    expect(await readFile(join(work, 'pins/real.sh'), 'utf8')).toContain(`RHCOS_BUILD_NAME:-${NEWEST_412}}`);
  });

  it('pin --write through a symlink to an existing script writes the script and keeps the link', async () => {
    await writeFile(join(work, 'real.sh'), await readFile(join(sb.work, 'release.sh')));
    await symlink('real.sh', join(work, 'release.sh'));
    const r = await osimage([
      'pin',
      '--write',
      join(work, 'release.sh'),
      '--meta',
      join(work, 'rhcos.json'),
      '--latest',
      '--base-url',
      sb.server.url,
    ]);
    expect(r.exitCode).toBe(0);
    expect(await readlink(join(work, 'release.sh'))).toBe('real.sh');
    expect(await readFile(join(work, 'real.sh'), 'utf8')).toContain(`RHCOS_BUILD_NAME:-${NEWEST_412}}`);
    expect((await readdir(work)).sort()).toEqual(['real.sh', 'release.sh', 'rhcos.json']);
  });

  it('a read-only (0444) pin file is refused, even as root, and left as it was', async () => {
    const script = join(work, 'release.sh');
    const bytes = await readFile(join(sb.work, 'release.sh'));
    await writeFile(script, bytes);
    await chmod(script, 0o444);
    const r = await osimage(['pin', '--write', script, '--latest', '--base-url', sb.server.url]);
    expect(r.stderr).toMatch(
      new RegExp(`error: ${script.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is (read-only \\(mode 0444\\)|not writable by you)`),
    );
    expect(r.exitCode).toBe(1);
    expect(await readFile(script)).toEqual(bytes);
    expect((await stat(script)).mode & 0o777).toBe(0o444);
    expect(await readdir(work)).toEqual(['release.sh']);
  });

  it('promote refuses a read-only pin file before running the test', async () => {
    const script = join(work, 'release.sh');
    await writeFile(script, 'RHCOS_BUILD_NAME=x\n');
    await chmod(script, 0o444);
    let ran = false;
    const runTest = async () => {
      ran = true;
      return { exitCode: 0, signal: undefined };
    };
    const req = { file: script, flags: { baseUrl: sb.server.url, channel: 'rhcos-4.12' }, env: {}, test: 'true', commit: false, runTest };
    await expect(promote(req)).rejects.toThrow(`${script} is`);
    expect(ran).toBe(false);
    expect(await readFile(script, 'utf8')).toBe('RHCOS_BUILD_NAME=x\n');
  });

  it('a read-only target behind a symlink is refused, naming both', async () => {
    await writeFile(join(work, 'real.sh'), 'RHCOS_BUILD_NAME=x\n');
    await chmod(join(work, 'real.sh'), 0o444);
    await symlink('real.sh', join(work, 'l.sh'));
    const plan = await planPin({
      file: join(work, 'l.sh'),
      flags: { baseUrl: sb.server.url, channel: 'rhcos-4.12' },
      env: {},
      latest: true,
    });
    await expect(applyPlan(plan)).rejects.toThrow(`${join(work, 'l.sh')} (${join(work, 'real.sh')}) is`);
    expect(await readFile(join(work, 'real.sh'), 'utf8')).toBe('RHCOS_BUILD_NAME=x\n');
  });

  it('payload write through a symlinked image-references keeps the link', async () => {
    const dir = await tempDir('mco-2019');
    await writePayload({ dir, osImage: U });
    const refs = join(dir, 'image-references');
    await writeFile(join(dir, 'refs.real'), await readFile(refs));
    await symlink('refs.real', `${refs}.tmp-link`);
    execFileSync('mv', ['-f', `${refs}.tmp-link`, refs]);
    await writePayload({ dir, osImage: W });
    expect(await readlink(refs)).toBe('refs.real');
    expect(await readFile(join(dir, 'refs.real'), 'utf8')).toContain(W);
  });

  it('two names of one file in one edit are refused', async () => {
    await writeFile(join(work, 'a'), 'a\n');
    await symlink('a', join(work, 'b'));
    await expect(
      editFilesAtomic([
        { path: join(work, 'a'), data: '1' },
        { path: join(work, 'b'), data: '2' },
      ]),
    ).rejects.toThrow(/are the same file/);
    expect(await readFile(join(work, 'a'), 'utf8')).toBe('a\n');
  });
});

describe('item 18: a failed multi-file write leaves no debris', () => {
  async function twoFiles(): Promise<{ a: string; b: string; before: Record<string, string> }> {
    const a = join(work, 'a.yaml');
    const b = join(work, 'b.yaml');
    await writeFile(a, 'old a\n');
    await writeFile(b, 'old b\n');
    return { a, b, before: await listing(work) };
  }

  it('the first write fails (its folder is missing): nothing changes', async () => {
    const { b, before } = await twoFiles();
    await expect(
      writeFilesAtomic([
        { path: join(work, 'missing', 'a.yaml'), data: 'new a\n' },
        { path: b, data: 'new b\n' },
      ]),
    ).rejects.toThrow(/no such directory/);
    expect(await listing(work)).toEqual(before);
  });

  it('the second write fails (its folder is missing): the first temp file is removed', async () => {
    const { a, before } = await twoFiles();
    await expect(
      writeFilesAtomic([
        { path: a, data: 'new a\n' },
        { path: join(work, 'missing', 'b.yaml'), data: 'new b\n' },
      ]),
    ).rejects.toThrow(/no such directory/);
    expect(await listing(work)).toEqual(before);
  });

  it.each([
    ['first', 'a.yaml', 'no backup or temp file is left'],
    ['second', 'b.yaml', 'the first file is put back and its backup and both temp files are gone'],
  ])('the %s rename fails (after its backup was made, at %s): %s', async (which, name) => {
    const { a, b, before } = await twoFiles();
    renameFault.beforeRename = (p) => {
      if (p === join(work, name)) throw new Error(`${which} rename fails`);
    };
    const writes = [
      { path: a, data: 'new a\n' },
      { path: b, data: 'new b\n' },
    ];
    await expect(writeFilesAtomic(writes)).rejects.toThrow(`${which} rename fails`);
    expect(await listing(work)).toEqual(before);
  });

  it('the second rename fails for real (a folder in place of the target, as root too)', async () => {
    const { a, before } = await twoFiles();
    await mkdir(join(work, 'c.yaml'));
    await writeFile(join(work, 'c.yaml', 'keep'), 'x');
    const withDir = await listing(work);
    expect(withDir).toEqual({ ...before, 'c.yaml': '<dir>' });
    await expect(
      writeFilesAtomic([
        { path: a, data: 'new a\n' },
        { path: join(work, 'c.yaml'), data: 'new c\n' },
      ]),
    ).rejects.toThrow();
    expect(await listing(work)).toEqual(withDir);
  });

  it('payload write whose ConfigMap rename fails leaves the folder exactly as it was', async () => {
    const dir = await tempDir('mco-2019');
    const before = await listing(dir);
    renameFault.beforeRename = (p) => {
      if (p.endsWith(CM_FILE)) throw new Error('simulated failure');
    };
    await expect(writePayload({ dir, osImage: W })).rejects.toThrow(/simulated failure/);
    expect(await listing(dir)).toEqual(before);
  });
});
