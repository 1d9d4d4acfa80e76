/** A registry's JSON error body read as oc's registry client (docker/distribution errcode) words it. */
import { describe, expect, it } from 'vitest';
import { describeRegistryErrors } from '../../src/registry/errors.js';

const body = (errors: unknown) => Buffer.from(JSON.stringify({ errors }));

describe('describeRegistryErrors', () => {
  it('one error: code lower-cased with spaces, then the message (errcode.Error)', () => {
    const r = describeRegistryErrors(body([{ code: 'MANIFEST_UNKNOWN', message: 'manifest unknown', detail: { Tag: 'x' } }]));
    expect(r).toEqual({
      codes: ['MANIFEST_UNKNOWN'],
      text: 'MANIFEST_UNKNOWN: manifest unknown',
      goText: 'manifest unknown: manifest unknown',
    });
    expect(describeRegistryErrors(body([{ code: 'NAME_UNKNOWN', message: 'repository name not known to registry' }])).goText).toBe(
      'name unknown: repository name not known to registry',
    );
  });

  it('several errors, a code of another shape, or no JSON: no Go text (the caller words the status instead)', () => {
    expect(
      describeRegistryErrors(
        body([
          { code: 'DENIED', message: 'a' },
          { code: 'UNAUTHORIZED', message: 'b' },
        ]),
      ).goText,
    ).toBeUndefined();
    expect(describeRegistryErrors(body([{ code: 'weird code', message: 'x' }])).goText).toBeUndefined();
    expect(describeRegistryErrors(body([{ code: 'DENIED' }])).goText).toBeUndefined();
    expect(describeRegistryErrors(Buffer.from('<html>nope</html>'))).toEqual({ codes: [], text: '<html>nope</html>' });
  });
});
