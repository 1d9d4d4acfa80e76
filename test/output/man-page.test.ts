/**
 * The man page (src/output/man-page.ts; build/man.mjs writes dist/man/osimage.1 from it): every command and option of
 * the command table is in it, and man (else groff) renders it without a warning.
 */
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { everyCommand } from '../../src/cli.js';
import { commandTable, flatTable } from '../../src/output/command-table.js';
import { manPage, roffText } from '../../src/output/man-page.js';
import { osimage } from '../helpers/cli.js';

const table = commandTable(await everyCommand());
const page = manPage(table, { version: '0.1.0', docs: 'https://github.com/openshift/osimage/tree/main/docs' });
const dir = mkdtempSync(join(tmpdir(), 'osimage-man-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'osimage.1');
writeFileSync(file, page);

describe('osimage.1', () => {
  it('has a section for every command and subcommand, with its usage and every option it shows in --help', () => {
    const commands = flatTable(table).filter((c) => c.path.length > 1 && c.path.at(-1) !== 'help');
    expect(commands.map((c) => c.path.join(' '))).toContain('osimage release info');
    for (const c of commands) {
      expect(page, c.path.join(' ')).toContain(`\n.SS ${roffText(c.path.join(' '))}\n.B ${roffText(c.usage)}\n`);
      for (const o of c.options) expect(page, `${c.path.join(' ')} ${o.flags}`).toContain(`\n.B ${roffText(o.flags)}\n`);
    }
    // The program's own options, once.
    for (const o of table.options) expect(page).toContain(`\n.B ${roffText(o.flags)}\n`);
    // Examples, as --help prints them.
    expect(page).toContain(roffText('osimage release info --image-for machine-os-content oci-archive:release.tar'));
  });

  it("says what --help says: each command's usage and options, in help's words", async () => {
    const words = (text: string) => text.replace(/\s+/g, ' ');
    for (const c of flatTable(table).filter((e) => e.path.at(-1) !== 'help')) {
      const help = words((await osimage([...c.path.slice(1), '--help'])).stdout);
      expect(help, c.path.join(' ')).toContain(words(`Usage: ${c.usage}`));
      for (const o of [...c.options, ...c.globalOptions]) expect(help, `${c.path.join(' ')} ${o.flags}`).toContain(words(o.description));
    }
  });

  it('escapes what roff would read as its own', () => {
    expect(roffText(".hidden\n'also\nC:\\dir -o → x")).toBe("\\&.hidden\n\\&'also\nC:\\edir \\-o \\[u2192] x");
  });

  it('man renders it without a warning (else groff; skipped, saying so, when neither is installed)', async () => {
    const man = await execa('sh', ['-c', 'command -v man'], { reject: false });
    const groff = await execa('sh', ['-c', 'command -v groff'], { reject: false });
    if (man.exitCode === 0) {
      const r = await execa('man', ['--warnings', '-l', file], {
        env: { MANPAGER: 'cat', MANWIDTH: '100', LC_ALL: 'C.UTF-8' },
        reject: false,
      });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^OSIMAGE\(1\)/);
      expect(r.stdout).toContain('osimage release info [options] <image...>');
    } else if (groff.exitCode === 0) {
      const r = await execa('groff', ['-man', '-Tutf8', '-ww', '-z', file], { reject: false });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
    } else {
      console.warn('skipped: neither man nor groff is installed');
    }
  });
});
