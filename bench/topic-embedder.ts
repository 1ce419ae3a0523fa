/**
 * A stand-in for a real embedding model's output, for the benches: dense unit vectors shaped
 * like a sentence model's (every component used, a direction all texts share, texts clustered
 * by topic) rather than the hashing test embedder's sparse ones, whose sign bits keep almost no
 * neighbourhood. Each text gets one to three of {@link TOPICS} topics with random weights, the
 * shared direction and noise, drawn from a PRNG seeded by the text's digest: the vectors carry
 * no meaning (a query finds the texts that drew its topics), only the geometry that decides how
 * well quantized vectors keep the neighbours.
 *
 * With the weights below, two texts of no common topic have a cosine of about 0.18, two of the
 * same single topic about 0.74: the range sentence models give unrelated and related passages.
 */
import { createHash } from 'node:crypto';
import { unitVector } from '../src/vectors/index.js';
import { memoisedEmbedder, seededRandom } from './support.js';

/** Topics (cluster centres) texts draw from, each near one of {@link DOMAINS} broader ones. */
export const TOPICS = 1024;
export const DOMAINS = 32;

/** Weights of the shared direction, the topics, the noise, and a topic's own part. */
const SHARED = 0.45;
const TOPIC = 0.8;
const NOISE = 0.55;
const OWN = 0.7;
const MAX_TOPICS = 3;

/** A standard normal draw (Box-Muller). */
function gaussian(next: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

/** A random unit vector of `dimensions` from `next`. */
function direction(next: () => number, dimensions: number): Float32Array {
  return unitVector(Float32Array.from({ length: dimensions }, () => gaussian(next)));
}

/** The stand-in's vectors of `dimensions`: a function of each text alone. */
export function topicVectors(dimensions: number): (text: string) => Float32Array {
  const shared = direction(seededRandom(1), dimensions);
  const domains = Array.from({ length: DOMAINS }, (_, t) =>
    direction(seededRandom(100 + t), dimensions),
  );
  const topics = Array.from({ length: TOPICS }, (_, t) => {
    const own = direction(seededRandom(1000 + t), dimensions);
    const domain = domains[t % DOMAINS]!;
    return unitVector(own.map((value, d) => OWN * value + domain[d]!));
  });
  return (text) => {
    const next = seededRandom(createHash('sha256').update(text).digest().readUInt32LE(0));
    const count = 1 + Math.floor(next() * MAX_TOPICS);
    const picks = Array.from({ length: count }, () => ({
      topic: topics[Math.floor(next() * TOPICS)]!,
      weight: -Math.log(1 - next()),
    }));
    const norm = Math.hypot(...picks.map((p) => p.weight));
    const noiseScale = NOISE / Math.sqrt(dimensions);
    const vector = new Float32Array(dimensions);
    for (let d = 0; d < dimensions; d++) {
      let value = SHARED * shared[d]! + noiseScale * gaussian(next);
      for (const { topic, weight } of picks) value += (TOPIC * weight * topic[d]!) / norm;
      vector[d] = value;
    }
    return unitVector(vector);
  };
}

/** An embedder over a memo of the stand-in's vectors (each text drawn once for every version). */
export function topicEmbedder(dimensions: number, model = `bench-topics-${dimensions}`) {
  return memoisedEmbedder(model, dimensions, topicVectors(dimensions));
}
