/**
 * payload merge against the machine-config-operator's own merge and render tests, ported by hand as fixtures
 * (test/fixtures/mco-merge/README.md lists them with their commits): each is run with the rules of the
 * OpenShift release whose MCO it comes from, and compared by JSON value. The Go tests marshal whole structs, so
 * zero values (empty lists, maps and strings, nulls) are pruned on both sides before comparing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mergeRulesFor } from '../../src/payload/mco-eras.js';
import { mcoMerge, selectForPool, type LabelSelector, type MergeInput } from '../../src/payload/mco-merge.js';

const DIR = fileURLToPath(new URL('../fixtures/mco-merge/', import.meta.url));

interface Fixture {
  source: { commit: string; test: string; case: string };
  openshift: string;
  pool: string;
  machineConfigSelector?: LabelSelector;
  poolSpec?: { osImageStream?: { name?: string } };
  controllerConfig?: Record<string, string>;
  controllerVersion?: string;
  inputs: MergeInput[];
  expected: { spec?: Record<string, unknown>; selected?: string[] };
  expectedError?: string;
  partial?: boolean;
}

/** Drop empty lists, maps and strings and nulls, recursively (Go's zero values, which the ports leave out). */
function prune(v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = v.map(prune).filter((x) => x !== undefined);
    return items.length ? items : undefined;
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v)
      .map(([k, x]) => [k, prune(x)] as const)
      .filter(([, x]) => x !== undefined);
    return entries.length ? Object.fromEntries(entries) : undefined;
  }
  return v === null || v === '' ? undefined : v;
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

describe('the MCO merge tests, era by era', () => {
  it('has the fixtures the README lists', () => {
    expect(files.length).toBeGreaterThanOrEqual(39);
  });

  for (const file of files) {
    const fx = JSON.parse(readFileSync(DIR + file, 'utf8')) as Fixture;
    it(`${fx.openshift} ${fx.source.commit.slice(0, 9)} ${fx.source.test} ${fx.source.case}`, () => {
      const rules = mergeRulesFor(fx.openshift);
      const run = () => {
        if (fx.source.test === 'TestGetMachineConfigsForPool') {
          return { selected: selectForPool(fx.inputs, fx.pool, fx.machineConfigSelector ?? {}).map((mc) => mc.metadata.name) };
        }
        const r = mcoMerge(fx.inputs, {
          rules,
          controller: fx.controllerConfig,
          controllerVersion: fx.controllerVersion,
          osImageStream: fx.poolSpec?.osImageStream?.name,
        });
        return { spec: r.spec };
      };
      if (fx.expectedError !== undefined) {
        expect(run).toThrow(fx.expectedError);
        return;
      }
      const got = run();
      if (fx.expected.selected) {
        expect(got.selected).toEqual(fx.expected.selected);
        return;
      }
      const want = prune(fx.expected.spec) ?? {};
      const have = prune(got.spec) as Record<string, unknown>;
      if (fx.partial) {
        for (const [k, v] of Object.entries(want as Record<string, unknown>)) expect(have[k], k).toEqual(v);
      } else expect(have).toEqual(want);
    });
  }
});
