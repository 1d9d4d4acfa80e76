/** `osimage version` (and `-o json`): the version first, then Node.js, then the commit when the build recorded it. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { renderVersion, versionJson } from '../../src/output/version-view.js';
import { osimage, osimageBin } from '../helpers/cli.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('osimage version', () => {
  it('prints `osimage VERSION` first and the Node.js version; the same text as --version', async () => {
    const r = await osimage(['version']);
    expect(r).toEqual({ stdout: `osimage ${VERSION}\nnode ${process.version}`, stderr: '', exitCode: 0 });
    expect((await osimage(['--version'])).stdout).toBe(r.stdout);
  });

  it('-o json: version and node, no commit when the build did not record one (src/ runs)', async () => {
    const r = await osimage(['version', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ version: VERSION, node: process.version });
  });

  it('-o yaml is a usage error (exit 2)', async () => {
    const r = await osimage(['version', '-o', 'yaml']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: option '-o, --output <format>' argument 'yaml' is invalid/);
  });

  it('bin/osimage (the bundle) names the commit dist/build-info.json records, as dist/ would', async () => {
    let recorded: Record<string, unknown> = {};
    try {
      recorded = JSON.parse(readFileSync(new URL('../../dist/build-info.json', import.meta.url), 'utf8')) as Record<string, unknown>;
    } catch {
      // built without build/build-info.mjs: no commit to name
    }
    const r = await osimageBin(['version', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ version: VERSION, node: process.version, ...recorded });
  });

  it('a build that knew its commit adds it, and says when the checkout had changes', () => {
    const facts = { version: '1.2.3', node: 'v20.18.1', commit: 'a'.repeat(40) };
    expect(renderVersion(facts)).toBe(`osimage 1.2.3\nnode v20.18.1\ncommit ${'a'.repeat(40)}\n`);
    expect(renderVersion({ ...facts, modified: true })).toBe(`osimage 1.2.3\nnode v20.18.1\ncommit ${'a'.repeat(40)} (modified)\n`);
    expect(versionJson({ ...facts, modified: true })).toEqual({
      version: '1.2.3',
      node: 'v20.18.1',
      commit: 'a'.repeat(40),
      modified: true,
    });
    expect(versionJson({ version: '1.2.3', node: 'v20.18.1' })).toEqual({ version: '1.2.3', node: 'v20.18.1' });
  });
});
