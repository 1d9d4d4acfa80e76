import { execa } from 'execa';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinScriptError, UnsafeValueError } from '../../src/pin/errors.js';
import { BLOCK_BEGIN, BLOCK_END, editPins, misspeltPins, newScript, parseScript, readPins, type PinValues } from '../../src/pin/script.js';

const V: PinValues = {
  RHCOS_BUILD_NAME: '412.86.202301311551-0',
  RHCOS_DEFAULT_CHANNEL: 'rhcos-4.12',
  RHCOS_BASE_URL: 'https://mirror.example/art/storage/releases',
};

/** Three lines in one form, with the old values. */
function three(
  form: (name: string, value: string) => string,
  old = { b: '47.245', c: 'maipo', u: 'https://old.example/releases' },
): string {
  return [form('RHCOS_BUILD_NAME', old.b), form('RHCOS_DEFAULT_CHANNEL', old.c), form('RHCOS_BASE_URL', old.u)]
    .map((l) => `${l}\n`)
    .join('');
}

const FORMS: Array<[string, (n: string, v: string) => string]> = [
  ['VAR=v', (n, v) => `${n}=${v}`],
  ["VAR='v'", (n, v) => `${n}='${v}'`],
  ['VAR="v"', (n, v) => `${n}="${v}"`],
  ['export VAR=v', (n, v) => `export ${n}=${v}`],
  ["export VAR='v'", (n, v) => `export ${n}='${v}'`],
  ['export VAR="v"', (n, v) => `export ${n}="${v}"`],
  ['VAR="${VAR:-v}"', (n, v) => `${n}="\${${n}:-${v}}"`],
  ['VAR=${VAR:-v}', (n, v) => `${n}=\${${n}:-${v}}`],
  ['export VAR="${VAR:-v}"', (n, v) => `export ${n}="\${${n}:-${v}}"`],
  ['export VAR="${VAR-v}"', (n, v) => `export ${n}="\${${n}-${v}}"`],
  [': "${VAR:=v}"', (n, v) => `: "\${${n}:=${v}}"`],
  [': ${VAR:=v}', (n, v) => `: \${${n}:=${v}}`],
  ['  indented export VAR="${VAR:-"v"}"', (n, v) => `  export ${n}="\${${n}:-"${v}"}"`],
];

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osimage-script-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** What bash (and sh) really assign when the script is sourced in an empty environment. */
async function shellReads(text: string, shell: 'bash' | 'sh' = 'bash'): Promise<PinValues> {
  const f = join(tmp, `s${Math.random().toString(16).slice(2)}.sh`);
  await writeFile(f, text.replace(/^#!.*\n/, ''));
  const r = await execa(
    shell,
    ['-c', `. "$1" >/dev/null; printf '%s\\n%s\\n%s' "$RHCOS_BUILD_NAME" "$RHCOS_DEFAULT_CHANNEL" "$RHCOS_BASE_URL"`, 'x', f],
    {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmp },
      extendEnv: false,
    },
  );
  const [b, c, u] = r.stdout.split('\n');
  return { RHCOS_BUILD_NAME: b!, RHCOS_DEFAULT_CHANNEL: c!, RHCOS_BASE_URL: u! };
}

describe('editPins: every assignment form', () => {
  for (const [label, form] of FORMS) {
    it(`edits ${label} in place, keeping the form`, async () => {
      const before = `#!/bin/sh\n# pins\n${three(form)}echo done\n`;
      const e = editPins(before, V, 'r.sh');
      const expected = `#!/bin/sh\n# pins\n${three(form, { b: V.RHCOS_BUILD_NAME, c: V.RHCOS_DEFAULT_CHANNEL, u: V.RHCOS_BASE_URL })}echo done\n`;
      expect(e.text).toBe(expected);
      expect(e.changed).toBe(true);
      expect(e.added).toEqual([]);
      expect(e.edited).toEqual(['RHCOS_BUILD_NAME', 'RHCOS_DEFAULT_CHANNEL', 'RHCOS_BASE_URL']);
      expect(readPins(parseScript(e.text), 'r.sh')).toEqual({
        RHCOS_BUILD_NAME: { value: V.RHCOS_BUILD_NAME, line: 3 },
        RHCOS_DEFAULT_CHANNEL: { value: V.RHCOS_DEFAULT_CHANNEL, line: 4 },
        RHCOS_BASE_URL: { value: V.RHCOS_BASE_URL, line: 5 },
      });
      expect(await shellReads(e.text)).toEqual(V);
      // A second run with the same values changes nothing.
      const again = editPins(e.text, V, 'r.sh');
      expect(again.changed).toBe(false);
      expect(again.text).toBe(e.text);
    });
  }
});

describe('editPins: every other byte is kept', () => {
  it('keeps comments, trailing text and other lines', () => {
    const before = [
      '#!/usr/bin/env bash',
      '# Release script. RHCOS_BUILD_NAME=in-a-comment is not a pin.',
      'set -euo pipefail',
      'RHCOS_BUILD_NAME="47.245"   # pinned for 4.0 GA; do not bump',
      "export RHCOS_DEFAULT_CHANNEL='maipo'; echo channel",
      'RHCOS_BASE_URL=https://old.example/releases && true',
      '  # RHCOS_BUILD_NAME=commented-out',
      'echo "$RHCOS_BUILD_NAME"',
      '',
    ].join('\n');
    const e = editPins(before, V, 'r.sh');
    expect(e.text).toBe(
      before
        .replace('RHCOS_BUILD_NAME="47.245"', `RHCOS_BUILD_NAME="${V.RHCOS_BUILD_NAME}"`)
        .replace("RHCOS_DEFAULT_CHANNEL='maipo'", `RHCOS_DEFAULT_CHANNEL='${V.RHCOS_DEFAULT_CHANNEL}'`)
        .replace('RHCOS_BASE_URL=https://old.example/releases', `RHCOS_BASE_URL=${V.RHCOS_BASE_URL}`),
    );
  });

  it('keeps CRLF line ends, and adds lines with CRLF', () => {
    const before = '#!/bin/bash\r\n# release\r\nexport RHCOS_BUILD_NAME="${RHCOS_BUILD_NAME:-47.245}" # pin\r\nset -e\r\n';
    const e = editPins(before, V, 'r.sh');
    expect(e.text).toBe(
      '#!/bin/bash\r\n# release\r\n\r\n' +
        `${BLOCK_BEGIN}\r\n` +
        `export RHCOS_DEFAULT_CHANNEL="\${RHCOS_DEFAULT_CHANNEL:-rhcos-4.12}"\r\n` +
        `export RHCOS_BASE_URL="\${RHCOS_BASE_URL:-${V.RHCOS_BASE_URL}}"\r\n` +
        `${BLOCK_END}\r\n\r\n` +
        `export RHCOS_BUILD_NAME="\${RHCOS_BUILD_NAME:-${V.RHCOS_BUILD_NAME}}" # pin\r\nset -e\r\n`,
    );
    expect(e.text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(e.added).toEqual(['RHCOS_DEFAULT_CHANNEL', 'RHCOS_BASE_URL']);
  });

  it('keeps a last line without a newline', () => {
    const e = editPins('RHCOS_BUILD_NAME=1\nRHCOS_DEFAULT_CHANNEL=c\nRHCOS_BASE_URL=https://x', V, 'r.sh');
    expect(e.text).toBe(
      `RHCOS_BUILD_NAME=${V.RHCOS_BUILD_NAME}\nRHCOS_DEFAULT_CHANNEL=${V.RHCOS_DEFAULT_CHANNEL}\nRHCOS_BASE_URL=${V.RHCOS_BASE_URL}`,
    );
  });

  it('edits every assignment of a variable (e.g. in both branches of an if)', () => {
    const before =
      'if [ -n "${CI:-}" ]; then\n  RHCOS_BUILD_NAME=1\nelse\n  RHCOS_BUILD_NAME=1\nfi\nRHCOS_DEFAULT_CHANNEL=c\nRHCOS_BASE_URL=u\n';
    const e = editPins(before, V, 'r.sh');
    expect(e.text.match(new RegExp(`RHCOS_BUILD_NAME=${V.RHCOS_BUILD_NAME}`, 'g'))).toHaveLength(2);
  });
});

describe('editPins: absent variables', () => {
  it('adds them in one marked block after the shebang and leading comments, in the default form', () => {
    const before = '#!/bin/bash\n# Copyright\n#\n# what this does\nset -e\necho hi\n';
    const e = editPins(before, V, 'r.sh');
    expect(e.text).toBe(
      '#!/bin/bash\n# Copyright\n#\n# what this does\n\n' +
        `${BLOCK_BEGIN}\n` +
        `export RHCOS_BUILD_NAME="\${RHCOS_BUILD_NAME:-${V.RHCOS_BUILD_NAME}}"\n` +
        `export RHCOS_DEFAULT_CHANNEL="\${RHCOS_DEFAULT_CHANNEL:-${V.RHCOS_DEFAULT_CHANNEL}}"\n` +
        `export RHCOS_BASE_URL="\${RHCOS_BASE_URL:-${V.RHCOS_BASE_URL}}"\n` +
        `${BLOCK_END}\n\nset -e\necho hi\n`,
    );
    expect(e.added).toEqual(['RHCOS_BUILD_NAME', 'RHCOS_DEFAULT_CHANNEL', 'RHCOS_BASE_URL']);
    expect(editPins(e.text, V, 'r.sh').changed).toBe(false);
  });

  it('writes added pins in the form the file already uses', () => {
    const e = editPins("#!/bin/sh\nRHCOS_BUILD_NAME='47.245'\n", V, 'r.sh');
    expect(e.text).toContain(`${BLOCK_BEGIN}\nRHCOS_DEFAULT_CHANNEL='rhcos-4.12'\nRHCOS_BASE_URL='${V.RHCOS_BASE_URL}'\n${BLOCK_END}\n`);
  });

  it('adds to an existing marked block instead of making a second one', () => {
    const before = `#!/bin/sh\n${BLOCK_BEGIN}\nexport RHCOS_BUILD_NAME="\${RHCOS_BUILD_NAME:-1}"\n${BLOCK_END}\nmake\n`;
    const e = editPins(before, V, 'r.sh');
    expect(e.text.split(BLOCK_BEGIN)).toHaveLength(2);
    expect(e.text).toBe(
      `#!/bin/sh\n${BLOCK_BEGIN}\nexport RHCOS_BUILD_NAME="\${RHCOS_BUILD_NAME:-${V.RHCOS_BUILD_NAME}}"\n` +
        `export RHCOS_DEFAULT_CHANNEL="\${RHCOS_DEFAULT_CHANNEL:-rhcos-4.12}"\nexport RHCOS_BASE_URL="\${RHCOS_BASE_URL:-${V.RHCOS_BASE_URL}}"\n${BLOCK_END}\nmake\n`,
    );
  });

  it('does not take here-documents, multi-line strings, continuations or command prefixes for pins', () => {
    const before = [
      '#!/bin/bash',
      'cat <<EOF',
      'RHCOS_BUILD_NAME=in-a-heredoc',
      'EOF',
      'msg="a multi-line',
      'RHCOS_DEFAULT_CHANNEL=in-a-string"',
      'echo \\',
      '  RHCOS_BASE_URL=an-argument',
      'make RHCOS_BUILD_NAME=a-make-variable',
      '',
    ].join('\n');
    const parsed = parseScript(before);
    expect(parsed.assignments.map((a) => a.name)).toEqual(['msg']);
    const e = editPins(before, V, 'r.sh');
    expect(e.added).toEqual(['RHCOS_BUILD_NAME', 'RHCOS_DEFAULT_CHANNEL', 'RHCOS_BASE_URL']);
    expect(e.text.endsWith(before.split('\n').slice(1).join('\n'))).toBe(true);
  });

  it('refuses pins assigned where editing others would leave them in force', () => {
    const cases: Array<[string, number]> = [
      ['RHCOS_BUILD_NAME=1\nRHCOS_BUILD_NAME=only-for-make make\n', 2],
      ['RHCOS_BUILD_NAME=1\nif [ -n "$CI" ]; then RHCOS_BUILD_NAME=2; fi\n', 2],
      ['readonly RHCOS_BUILD_NAME=1\n', 1],
      ['set -e; RHCOS_BUILD_NAME=1\n', 1],
      ['export A=1 && declare -x RHCOS_BUILD_NAME=1\n', 1],
      ['RHCOS_BUILD_NAME=1 &\n', 1],
      ['export RHCOS_BUILD_NAME=1 | cat\n', 1],
    ];
    for (const [text, line] of cases) {
      expect(() => editPins(text, V, 'r.sh'), text).toThrow(
        new RegExp(`^r\\.sh:${line}: cannot edit RHCOS_BUILD_NAME: it is assigned here only for one command`),
      );
      expect(() => readPins(parseScript(text), 'r.sh'), text).toThrow(PinScriptError);
    }
    // The same names as arguments, in strings or in comments are not assignments.
    expect(editPins('echo RHCOS_BUILD_NAME=1 "; RHCOS_BUILD_NAME=2"  # ; RHCOS_BUILD_NAME=3\n', V, 'r.sh').added).toHaveLength(3);
  });

  it('creates a minimal script for a new file', async () => {
    const text = newScript(V, 'new.sh');
    expect(text.startsWith('#!/usr/bin/env bash\n# ')).toBe(true);
    expect(readPins(parseScript(text), 'new.sh')).toMatchObject({
      RHCOS_BUILD_NAME: { value: V.RHCOS_BUILD_NAME },
      RHCOS_DEFAULT_CHANNEL: { value: V.RHCOS_DEFAULT_CHANNEL },
      RHCOS_BASE_URL: { value: V.RHCOS_BASE_URL },
    });
    expect(await shellReads(text)).toEqual(V);
  });
});

describe('editPins: values are written so the shell reads them back exactly', () => {
  const odd: PinValues = { ...V, RHCOS_BASE_URL: 'file:///srv/a$b~c/it\'s "here"/x`y`\\z' };
  for (const [label, form] of [
    ['bare', (n: string, v: string) => `${n}=${v}`],
    ['double', (n: string, v: string) => `export ${n}="${v}"`],
  ] as const) {
    it(`escapes $, quotes, backquotes, backslashes and ~ in ${label} values`, async () => {
      const e = editPins(three(form), odd, 'r.sh');
      expect(await shellReads(e.text, 'bash')).toEqual(odd);
      expect(await shellReads(e.text, 'sh')).toEqual(odd);
      expect(readPins(parseScript(e.text), 'r.sh').RHCOS_BASE_URL?.value).toBe(odd.RHCOS_BASE_URL);
      expect(editPins(e.text, odd, 'r.sh').changed).toBe(false);
    });
  }

  it("refuses a ' in a single-quoted value", () => {
    const run = () =>
      editPins(
        three((n, v) => `${n}='${v}'`),
        { ...V, RHCOS_BASE_URL: "file:///it's" },
        'r.sh',
      );
    expect(run).toThrow(UnsafeValueError);
    expect(run).toThrow(/^r\.sh:3: refusing to write RHCOS_BASE_URL="file:\/\/\/it's": it contains ' /);
  });

  it('refuses anything but plain characters inside ${VAR:-…}', () => {
    const run = () =>
      editPins(
        three((n, v) => `${n}="\${${n}:-${v}}"`),
        { ...V, RHCOS_BASE_URL: 'file:///a$b' },
        'r.sh',
      );
    expect(run).toThrow(UnsafeValueError);
    expect(run).toThrow(/r\.sh:3: .*contains "\$", which is not portable inside/);
  });

  it('refuses control characters and newlines in every form', () => {
    expect(() => editPins('RHCOS_BUILD_NAME="x"\n', { ...V, RHCOS_BUILD_NAME: 'a\nb' }, 'r.sh')).toThrow(/control character or newline/);
    expect(() => newScript({ ...V, RHCOS_DEFAULT_CHANNEL: 'a\tb' }, 'n.sh')).toThrow(UnsafeValueError);
  });
});

describe('reading pins', () => {
  it('refuses assignments that are not a fixed string', () => {
    const text = 'RHCOS_BUILD_NAME="$(cat build.txt)"\n';
    expect(() => readPins(parseScript(text), 'r.sh')).toThrow(PinScriptError);
    expect(() => readPins(parseScript(text), 'r.sh')).toThrow(/^r\.sh:1: cannot read RHCOS_BUILD_NAME: the value expands something/);
    expect(() => editPins(text, V, 'r.sh')).toThrow(/^r\.sh:1: cannot edit RHCOS_BUILD_NAME/);
  });

  it('refuses assignments that disagree', () => {
    expect(() => readPins(parseScript('RHCOS_BUILD_NAME=1\nRHCOS_BUILD_NAME=2\n'), 'r.sh')).toThrow(
      /^r\.sh:2: RHCOS_BUILD_NAME is assigned "2" here but "1" on line 1/,
    );
  });

  it('finds misspelt pins: assigned names and the name a pin defaults from', () => {
    const text = [
      '# RELEASE_BUILD_NAME=only a comment',
      'RHCOS_BUILD_NAME="${RELEASE_BUILD_NAME:-400.7.20190306.0}"',
      'export RHCOS_BUILDNAME=1',
      'if true; then RHCOS_DEFAULT_CHANEL=x; fi',
      'OTHER=1',
    ].join('\n');
    const parsed = parseScript(text);
    expect(misspeltPins(parsed)).toEqual([
      { name: 'RHCOS_BUILDNAME', line: 3, suggestion: 'RHCOS_BUILD_NAME' },
      { name: 'RHCOS_DEFAULT_CHANEL', line: 4, suggestion: 'RHCOS_DEFAULT_CHANNEL' },
      { name: 'RELEASE_BUILD_NAME', line: 2, suggestion: 'RHCOS_BUILD_NAME' },
    ]);
    expect(() => readPins(parsed, 'r.sh')).toThrow(/defaults from \$\{RELEASE_BUILD_NAME\}, not \$\{RHCOS_BUILD_NAME\}/);
  });

  it('reads an empty pin as empty (a floating build)', () => {
    expect(readPins(parseScript('export RHCOS_BUILD_NAME="${RHCOS_BUILD_NAME:-}"\n'), 'r.sh')).toEqual({
      RHCOS_BUILD_NAME: { value: '', line: 1 },
    });
  });
});

describe('a second OS stream: its own variables', () => {
  it('reads and edits RHCOS_RHEL_10_* only, adding absent ones to the existing block in the form of the pins there', () => {
    const before = [
      '#!/bin/bash',
      BLOCK_BEGIN,
      "RHCOS_BUILD_NAME='9.8.20260428-0'",
      "RHCOS_DEFAULT_CHANNEL='rhel-9.8/builds'",
      BLOCK_END,
      "RHCOS_RHEL_10_DEFAULT_CHANNEL='rhel-10.1/builds'",
      '',
    ].join('\n');
    expect(readPins(parseScript(before), 'r.sh', 'rhel-10')).toEqual({ RHCOS_DEFAULT_CHANNEL: { value: 'rhel-10.1/builds', line: 6 } });
    const v = { RHCOS_BUILD_NAME: '10.2.20260217-0', RHCOS_DEFAULT_CHANNEL: 'rhel-10.2/builds', RHCOS_BASE_URL: 'https://m.example/r' };
    const e = editPins(before, v, 'r.sh', 'rhel-10');
    expect(e.edited).toEqual(['RHCOS_RHEL_10_DEFAULT_CHANNEL']);
    expect(e.added).toEqual(['RHCOS_RHEL_10_BUILD_NAME', 'RHCOS_RHEL_10_BASE_URL']);
    expect(e.text).toBe(
      [
        '#!/bin/bash',
        BLOCK_BEGIN,
        "RHCOS_BUILD_NAME='9.8.20260428-0'",
        "RHCOS_DEFAULT_CHANNEL='rhel-9.8/builds'",
        "RHCOS_RHEL_10_BUILD_NAME='10.2.20260217-0'",
        "RHCOS_RHEL_10_BASE_URL='https://m.example/r'",
        BLOCK_END,
        "RHCOS_RHEL_10_DEFAULT_CHANNEL='rhel-10.2/builds'",
        '',
      ].join('\n'),
    );
    expect(readPins(parseScript(e.text), 'r.sh')).toMatchObject({ RHCOS_BUILD_NAME: { value: '9.8.20260428-0' } });
    expect(misspeltPins(parseScript(e.text))).toEqual([]);
    expect(newScript(v, 'n.sh', 'rhel-10')).toContain('export RHCOS_RHEL_10_BUILD_NAME="${RHCOS_RHEL_10_BUILD_NAME:-10.2.20260217-0}"');
  });
});
