/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every
 * line must be a `# HELP`, a `# TYPE`, another comment, or a sample `name{labels} value`, each
 * sample's family must have been typed first, and histogram buckets must not decrease.
 */

/** One sample line. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const SAMPLE = new RegExp(
  `^(${NAME})(?:\\{(${LABEL}(?:,${LABEL})*,?)?\\})? (-?[0-9.e+-]+|NaN|[+-]Inf)(?: -?\\d+)?$`,
);
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** The samples of `text`; throws naming the first line that breaks the format. */
export function parsePrometheusText(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  text.split('\n').forEach((line, index) => {
    const fail = (why: string) => {
      throw new Error(`line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line === '') return;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) {
        if (!new RegExp(`^${NAME}$`).test(type[1]!)) fail('bad metric name');
        if (!TYPES.has(type[2]!)) fail('unknown type');
        if (types.has(type[1]!)) fail('family typed twice');
        types.set(type[1]!, type[2]!);
      } else if (line.startsWith('# HELP ') && !/^# HELP \S+ .*$/.test(line)) fail('bad HELP');
      return;
    }
    const match = SAMPLE.exec(line);
    if (!match) return fail('not a sample');
    const name = match[1]!;
    const family = [...types.keys()].find(
      (f) =>
        name === f ||
        (types.get(f) === 'histogram' &&
          /^_(bucket|sum|count)$/.test(name.slice(f.length)) &&
          name.startsWith(f)),
    );
    if (!family) fail('sample of an untyped family');
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(
      /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g,
    )) {
      labels[key!] = value!;
    }
    const value =
      match[3] === '+Inf' ? Infinity : match[3] === '-Inf' ? -Infinity : Number(match[3]);
    if (Number.isNaN(value) && match[3] !== 'NaN') fail('bad value');
    samples.push({ name, labels, value });
  });
  checkBuckets(samples);
  return samples;
}

/** Cumulative histogram buckets never decrease, and `+Inf` equals `_count`. */
function checkBuckets(samples: readonly Sample[]): void {
  const series = new Map<string, number[]>();
  for (const sample of samples) {
    if (!sample.name.endsWith('_bucket')) continue;
    const { le: _le, ...rest } = sample.labels;
    const key = `${sample.name}${JSON.stringify(rest)}`;
    series.set(key, [...(series.get(key) ?? []), sample.value]);
  }
  for (const [key, counts] of series) {
    counts.forEach((count, i) => {
      if (i > 0 && count < counts[i - 1]!) throw new Error(`buckets decrease in ${key}`);
    });
  }
}

/** The sum of the samples named `name` whose labels include `where`. */
export function sampleValue(
  samples: readonly Sample[],
  name: string,
  where: Readonly<Record<string, string>> = {},
): number {
  return samples
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
