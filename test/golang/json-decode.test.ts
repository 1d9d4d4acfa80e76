import { describe, expect, it } from 'vitest';
import { type GoType, goJsonSyntaxError, goTypeString, goUnmarshalError } from '../../src/golang/json-decode.js';
import { CINCINNATI_METADATA } from '../../src/release/new/metadata.js';

/** oc's release-metadata type (pkg/cli/admin/release/new.go), as `--metadata` is decoded into it. */
const CINCINNATI: GoType = CINCINNATI_METADATA;

describe('goUnmarshalError: json.Unmarshal(text, &CincinnatiMetadata{}) as Go 1.19 words it', () => {
  // Each expected text is Go 1.19's own, printed by a program decoding the input into the same struct.
  const table: Array<[string, string]> = [
    ['', 'unexpected end of JSON input'],
    [' ', 'unexpected end of JSON input'],
    ['{', 'unexpected end of JSON input'],
    ['{bad', "invalid character 'b' looking for beginning of object key string"],
    ['[1]', 'json: cannot unmarshal array into Go value of type release.CincinnatiMetadata'],
    ['{"version":5}', 'json: cannot unmarshal number into Go struct field CincinnatiMetadata.version of type string'],
    ['null', ''],
    ['{}', ''],
    ['"x"', 'json: cannot unmarshal string into Go value of type release.CincinnatiMetadata'],
    ['5', 'json: cannot unmarshal number into Go value of type release.CincinnatiMetadata'],
    ['true', 'json: cannot unmarshal bool into Go value of type release.CincinnatiMetadata'],
    ['tru', "invalid character ' ' in literal true (expecting 'e')"],
    ['nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['fals', "invalid character ' ' in literal false (expecting 'e')"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b"}', "invalid character '\"' after object key:value pair"],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1.5e', "invalid character ' ' in exponent of numeric literal"],
    ['1.5e+', "invalid character ' ' in exponent of numeric literal"],
    ['-', "invalid character ' ' in numeric literal"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['01', "invalid character '1' after top-level value"],
    ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
    ['{"a":"\\u12g4"}', "invalid character 'g' in \\u hexadecimal character escape"],
    ['{"a":"\u0001"}', "invalid character '\\x01' in string literal"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    ['{"a":1} ', ''],
    ['é', "invalid character 'Ã' looking for beginning of value"],
    ["'", "invalid character '\\'' looking for beginning of value"],
    ['"', 'unexpected end of JSON input'],
    ['{"version":[1]}', 'json: cannot unmarshal array into Go struct field CincinnatiMetadata.version of type string'],
    ['{"Version":true}', 'json: cannot unmarshal bool into Go struct field CincinnatiMetadata.version of type string'],
    ['{"VERSION":{}}', 'json: cannot unmarshal object into Go struct field CincinnatiMetadata.version of type string'],
    ['{"previous":"4.1.0"}', 'json: cannot unmarshal string into Go struct field CincinnatiMetadata.previous of type []string'],
    ['{"previous":["a",5]}', 'json: cannot unmarshal number into Go struct field CincinnatiMetadata.previous of type string'],
    ['{"next":{}}', 'json: cannot unmarshal object into Go struct field CincinnatiMetadata.next of type []string'],
    ['{"metadata":[]}', 'json: cannot unmarshal array into Go struct field CincinnatiMetadata.metadata of type map[string]interface {}'],
    ['{"metadata":"x"}', 'json: cannot unmarshal string into Go struct field CincinnatiMetadata.metadata of type map[string]interface {}'],
    ['{"metadata":{"a":[1,{"b":null}]}}', ''],
    ['{"kind":1,"version":2}', 'json: cannot unmarshal number into Go struct field CincinnatiMetadata.kind of type string'],
    ['{"previous":[null,"x"]}', ''],
    ['{"metadata":null}', ''],
    ['{"url":"https://x","version":"4.1"}', ''],
    ['[', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['{"a"', 'unexpected end of JSON input'],
    ['\t\n', 'unexpected end of JSON input'],
    ['1 2', "invalid character '2' after top-level value"],
    ['{"a":[}', "invalid character '}' looking for beginning of value"],
    ['{"a":{]}', "invalid character ']' looking for beginning of object key string"],
    ['{"a":"\u007f"}', ''],
    ['{"\u212aind":1}', 'json: cannot unmarshal number into Go struct field CincinnatiMetadata.kind of type string'],
    ['{"a":1e5,"b":-0.5E-3}', ''],
    ['\u0000', "invalid character '\\x00' looking for beginning of value"],
    ['\u00a0', "invalid character 'Â' looking for beginning of value"],
    ['\u0085', "invalid character 'Â' looking for beginning of value"],
  ];
  it.each(table)('%j', (input, want) => {
    expect(goUnmarshalError(input, CINCINNATI) ?? '').toBe(want);
  });
});

describe('goJsonSyntaxError', () => {
  it('accepts what JSON.parse accepts', () => {
    for (const ok of ['{"a":[1,2.5e-3,true,false,null,"x\\u00e9\\n"]}', ' [ ] ', '"s"', '-0', '0.0E+1']) {
      expect(goJsonSyntaxError(ok), ok).toBeUndefined();
    }
  });
  it('reads bytes as Go does: a byte of a multi-byte character is quoted as a Latin-1 rune', () => {
    expect(goJsonSyntaxError(Buffer.from('é'))).toBe("invalid character 'Ã' looking for beginning of value");
  });
});

describe('goTypeString', () => {
  it('writes reflect.Type.String()', () => {
    expect(goTypeString(CINCINNATI)).toBe('release.CincinnatiMetadata');
    expect(goTypeString({ kind: 'map', elem: { kind: 'interface' } })).toBe('map[string]interface {}');
    expect(goTypeString({ kind: 'slice', elem: { kind: 'string' } })).toBe('[]string');
  });
});
