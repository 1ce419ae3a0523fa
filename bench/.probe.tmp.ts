import { topicVectors } from './topic-embedder.js';
import { searchCorpus, searchQueries } from './search.bench.js';
import { itemText } from '../src/vectors/index.js';
const D = 384, N = +(process.env.N ?? 100000);
const draw = topicVectors(D);
const corpus = searchCorpus(N);
const vs = corpus.map((c) => draw(itemText(c)));
const qs = searchQueries(corpus, 40).map(draw);
const dot = (a: Float32Array, b: Float32Array) => { let s = 0; for (let i = 0; i < D; i++) s += a[i]! * b[i]!; return s; };
let rs = 0; for (let i = 0; i < 1000; i++) rs += dot(vs[i]!, vs[i + 1]!);
const bits = (v: Float32Array) => { const b = new Uint32Array(D / 32); for (let i = 0; i < D; i++) if (v[i]! > 0) b[i >> 5]! |= 1 << (i & 31); return b; };
const pc = (x: number) => { x -= (x >>> 1) & 0x55555555; x = (x & 0x33333333) + ((x >>> 2) & 0x33333333); return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24; };
const vb = vs.map(bits);
const rec = new Map<number, number>(); let c1 = 0, c10 = 0, c100 = 0;
for (const q of qs) {
  const s = vs.map((v, i) => [dot(v, q), i] as const).sort((a, b) => b[0] - a[0]);
  c1 += s[0]![0]; c10 += s[9]![0]; c100 += s[99]![0];
  const top10 = new Set(s.slice(0, 10).map((x) => x[1]));
  const qb = bits(q);
  const h = vb.map((b, i) => { let d = 0; for (let j = 0; j < b.length; j++) d += pc(b[j]! ^ qb[j]!); return [d, i] as const; }).sort((a, b) => a[0] - b[0]);
  for (const over of [1, 2, 4, 8]) {
    const cand = h.slice(0, 100 * over).map((x) => x[1]);
    const re = cand.map((i) => [dot(vs[i]!, q), i] as const).sort((a, b) => b[0] - a[0]).slice(0, 10);
    rec.set(over, (rec.get(over) ?? 0) + re.filter((x) => top10.has(x[1])).length / 10);
  }
}
const n = qs.length;
console.log(JSON.stringify(process.env.TOPIC_NOISE), 'pair', (rs / 1000).toFixed(2), 'cos@1/10/100', (c1 / n).toFixed(2), (c10 / n).toFixed(2), (c100 / n).toFixed(2), 'recall@10 by oversample', [...rec].map(([o, r]) => `${o}:${(r / n).toFixed(3)}`).join(' '));
