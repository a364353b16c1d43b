/**
 * The demo provider's embeddings: an offline, deterministic SIMULATOR. Each input gets a unit
 * vector drawn from a pseudo-random sequence seeded by a hash (FNV-1a) of the input text and the
 * size, so equal inputs always get equal vectors. Size: `dimensions` (1 to 3072), default 256.
 * Usage: the token rule of `demo-tokens.ts`, summed over the inputs.
 */
import { type EmbeddingRequest, type EmbeddingResult, UnsupportedFeatureError } from '../chat-types.ts';
import { demoTokens } from './demo-tokens.ts';

/** Vector size when the request names none. */
export const DEMO_DEFAULT_DIMENSIONS = 256;
/** Largest `dimensions` the simulator accepts. */
export const DEMO_MAX_DIMENSIONS = 3072;

/** 32-bit FNV-1a over the UTF-16 code units of the text. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: a small deterministic generator of floats in [0, 1). */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The unit vector of one input. */
export function demoVector(input: string, dimensions: number): number[] {
  const next = generator(fnv1a(`${dimensions}:${input}`));
  const vector = Array.from({ length: dimensions }, () => next() * 2 - 1);
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  // A zero draw is practically impossible; fall back to a basis vector to stay a unit vector.
  return norm === 0 ? vector.map((_, i) => (i === 0 ? 1 : 0)) : vector.map((value) => value / norm);
}

function dimensionsOf(request: EmbeddingRequest): number {
  const dimensions = request.dimensions ?? DEMO_DEFAULT_DIMENSIONS;
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > DEMO_MAX_DIMENSIONS) {
    throw new UnsupportedFeatureError(
      'dimensions',
      `The demo embedding model supports dimensions 1 to ${DEMO_MAX_DIMENSIONS}.`,
    );
  }
  return dimensions;
}

/** Embeds every input, in input order. */
function embed(request: EmbeddingRequest): EmbeddingResult {
  const dimensions = dimensionsOf(request);
  const inputs = typeof request.input === 'string' ? [request.input] : request.input;
  let inputTokens = 0;
  for (const input of inputs) inputTokens += demoTokens(input);
  return { vectors: inputs.map((input) => demoVector(input, dimensions)), usage: { inputTokens } };
}

/** The demo simulator's embeddings capability. */
export const demoEmbeddings = { embed };
