// One cold parse of an image-references file, as `release info` does it once per run: osimage's
// parseImageReferences (dist/oci/image-stream.js) against a plain JSON.parse of the same bytes.
// Prints {"osimageMs": …, "jsonParseMs": …}; module loading is not counted.
import { readFileSync } from 'node:fs';

const bytes = readFileSync(process.argv[2]);
const { parseImageReferences } = await import('../../../dist/oci/image-stream.js');
let t = process.hrtime.bigint();
JSON.parse(bytes.toString('utf8'));
const jsonParseMs = Number(process.hrtime.bigint() - t) / 1e6;
t = process.hrtime.bigint();
parseImageReferences(bytes);
const osimageMs = Number(process.hrtime.bigint() - t) / 1e6;
process.stdout.write(`${JSON.stringify({ osimageMs, jsonParseMs })}\n`);
