import { describe, expect, it } from 'vitest';
import { compare, format, parse } from '../../src/golang/semver.js';

/** The texts are blang/semver v3/v4 Parse's (vendored in oc: vendor/github.com/blang/semver/semver.go). */
describe('semver: as strict as oc (blang/semver Parse)', () => {
  it.each([
    ['', 'Version string empty'],
    ['notsemver', 'No Major.Minor.Patch elements found'],
    ['4.13', 'No Major.Minor.Patch elements found'],
    ['v4.13.1', 'Invalid character(s) found in major number "v4"'],
    ['=4.13.1', 'Invalid character(s) found in major number "=4"'],
    [' 4.13.1', 'Invalid character(s) found in major number " 4"'],
    ['04.13.1', 'Major number must not contain leading zeroes "04"'],
    ['4.x.1', 'Invalid character(s) found in minor number "x"'],
    ['4.013.1', 'Minor number must not contain leading zeroes "013"'],
    ['.13.1', 'strconv.ParseUint: parsing "": invalid syntax'],
    ['410.8.20190325.0', 'Invalid character(s) found in patch number "20190325.0"'],
    ['4.13.01', 'Patch number must not contain leading zeroes "01"'],
    ['4.13.1-', 'Prerelease is empty'],
    ['4.13.1-rc..1', 'Prerelease is empty'],
    ['4.13.1-01', 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ['4.13.1-rc_1', 'Invalid character(s) found in prerelease "rc_1"'],
    ['4.13.1+', 'Build meta data is empty'],
    ['4.13.1+a_b', 'Invalid character(s) found in build meta data "a_b"'],
    ['18446744073709551616.0.0', 'strconv.ParseUint: parsing "18446744073709551616": value out of range'],
  ])('%j: %s', (text, error) => {
    expect(parse(text)).toEqual({ error });
  });

  it.each(['4.13.1', '0.0.1-2019-03-25-000000', '4.13.0-rc.3+build.7', '18446744073709551615.0.0', '4.1.0-0.nightly-2019-04-22-005054'])(
    '%s parses and prints back as given',
    (text) => {
      const p = parse(text);
      expect(p.error).toBeUndefined();
      expect(format(p.version!)).toBe(text);
    },
  );

  it('leaves out build metadata when asked (component versions)', () => {
    expect(format(parse('1.26.1+abc.def').version!, { build: false })).toBe('1.26.1');
  });

  it('orders by semver precedence', () => {
    const sorted = ['4.13.10', '4.13.2', '4.13.2-rc.1', '4.13.2-rc.10', '4.13.2-rc.2', '4.13.2-alpha', '4.13.2-rc', '4.2.0+b']
      .map((t) => parse(t).version!)
      .sort(compare)
      .map((v) => format(v));
    expect(sorted).toEqual(['4.2.0+b', '4.13.2-alpha', '4.13.2-rc', '4.13.2-rc.1', '4.13.2-rc.2', '4.13.2-rc.10', '4.13.2', '4.13.10']);
  });
});
