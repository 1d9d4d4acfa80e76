#!/usr/bin/env node
// many-manifests.mjs DIR [COUNT] [--json]: a `release new --from-dir` input of COUNT small manifests (default
// 20,000) over 20 operator folders, for timing and memory probes of the manifest check. Every tenth file holds
// three documents; with --json every other file is a .json manifest.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, countArg, ...flags] = process.argv.slice(2);
if (!dir) {
  console.error('usage: many-manifests.mjs DIR [COUNT] [--json]');
  process.exit(2);
}
const count = Number(countArg ?? 20000);
const json = flags.includes('--json');
const operators = 20;
const digest = (c) => `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${c.repeat(64)}`;
const tags = [];
for (let o = 0; o < operators; o++) tags.push({ name: `op-${o}`, from: { kind: 'DockerImage', name: digest((o % 10).toString()) } });
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'image-references'), JSON.stringify({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', spec: { tags } }));

const deployment = (o, i) => `# generated manifest ${i}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: op-${o}-${i}
  namespace: openshift-op-${o}
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
spec:
  replicas: 1
  selector:
    matchLabels: {app: op-${o}}
  template:
    metadata:
      labels:
        app: op-${o}
    spec:
      containers:
      - name: operator
        image: ${digest((o % 10).toString())}
        args: ["--v=2", "--config=/etc/config.yaml"]
        resources:
          requests: {cpu: 10m, memory: 50Mi}
`;
for (let o = 0; o < operators; o++) {
  const od = join(dir, `op-${o}`);
  mkdirSync(od, { recursive: true });
  for (let i = o; i < count; i += operators) {
    const name = `0000_50_op-${o}_${String(i).padStart(6, '0')}`;
    if (json && i % 2 === 1) {
      writeFileSync(
        join(od, `${name}.json`),
        JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { key: 'x'.repeat(200) } }, null, 2),
      );
    } else {
      const text = i % 10 === 0 ? [deployment(o, i), deployment(o, i + 1), deployment(o, i + 2)].join('---\n') : deployment(o, i);
      writeFileSync(join(od, `${name}.yaml`), text);
    }
  }
}
