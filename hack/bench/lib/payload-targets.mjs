/**
 * The verdicts of the full-size payload section: each operation's ratio to oc 4.13 (the median of each round's
 * osimage/oc) against its target, peak memory where a target names it, and bytes fetched against the minimum the
 * answer needs. A median that misses while the fastest pair meets the bound is reported as within the noise.
 */
import { median } from './measure.mjs';

/** Targets by operation key (payload-queries.mjs `operations`): wall ratio to oc, and peak RSS ≤ oc's where asked. */
export const PAYLOAD_TARGETS = {
  info: { wall: 1.0, stretch: 0.8 },
  pullspecs: { wall: 1.0, stretch: 0.8 },
  commits: { wall: 1.0, stretch: 0.8 },
  json: { wall: 1.0, stretch: 0.8 },
  changes: { wall: 1.0 },
  extractFile: { wall: 1.3, why: 'start-up bound' },
  extractTo: { wall: 1.0 },
  fromDir: { wall: 0.8, rss: true },
};

/** Bytes fetched may exceed the minimum by this much. */
export const BYTES_BOUND = 1.05;

function pairRatios(a = [], b = [], key = 'wallMs') {
  const r = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (!a[i].failed && !b[i].failed && a[i][key] !== undefined && b[i][key] !== undefined) r.push(a[i][key] / b[i][key]);
  }
  return r;
}

const x = (v) => `${v.toFixed(2)}×`;

/** One verdict: met, missed, or missed with its fastest pair inside the bound (the machine's noise). */
function verdict(ratios, bound) {
  const m = median(ratios);
  if (m <= bound) return { m, text: '**met**' };
  return { m, text: Math.min(...ratios) <= bound ? '**missed** (within the noise: the best pair meets it)' : '**missed**' };
}

/** The targets table (Markdown lines), or a line saying why there is none. */
export function payloadTargetLines(pq) {
  const L = ['### Targets against oc 4.13', ''];
  if (!pq.results.some((r) => r.samples.oc)) {
    L.push('Not judged: oc is not on PATH (bytes against the minimum are in the table above).', '');
    return L;
  }
  L.push('| operation | target | measured (median, range) | result |', '|---|---|---|---|');
  for (const r of pq.results) {
    const t = PAYLOAD_TARGETS[r.key];
    if (t && r.samples.oc) {
      const ratios = pairRatios(r.samples.osimage, r.samples.oc);
      if (ratios.length === 0) L.push(`| ${r.label} | ≤ ${x(t.wall)} oc | a run failed | **not measured** |`);
      else {
        const v = verdict(ratios, t.wall);
        const stretch = t.stretch
          ? ` (≤ ${x(t.stretch)} where start-up is not the whole cost: ${v.m <= t.stretch ? 'met' : 'not met'})`
          : '';
        L.push(
          `| ${r.label} | ≤ ${x(t.wall)} oc wall${t.why ? ` (${t.why})` : ''} | ${x(v.m)} (${x(Math.min(...ratios))}–${x(Math.max(...ratios))}) | ${v.text}${stretch} |`,
        );
      }
      if (t.rss) {
        const rss = pairRatios(r.samples.osimage, r.samples.oc, 'rssKiB');
        if (rss.length > 0) {
          const o = median(r.samples.osimage.filter((s) => !s.failed).map((s) => s.rssKiB)) / 1024;
          const c = median(r.samples.oc.filter((s) => !s.failed).map((s) => s.rssKiB)) / 1024;
          L.push(
            `| ${r.label}, peak RSS | ≤ oc's | ${o.toFixed(0)} MiB vs ${c.toFixed(0)} MiB (${x(median(rss))}) | ${verdict(rss, 1).text} |`,
          );
        }
      }
    }
    const b = r.bytes?.osimage?.bytes;
    if (b !== undefined && r.minimum > 0) {
      const q = b / r.minimum;
      L.push(
        `| ${r.label}, bytes fetched | ≤ ${x(BYTES_BOUND)} the minimum | ${q.toFixed(3)}× | ${q <= BYTES_BOUND ? '**met**' : '**missed**'} |`,
      );
    }
  }
  L.push('');
  return L;
}
