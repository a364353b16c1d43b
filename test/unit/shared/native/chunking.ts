/** Ways to cut a recorded upstream body into network chunks, for accumulator tests. */

/** Every cut of `bytes` into two chunks, plus one byte a chunk, plus the whole body at once. */
export function chunkings(bytes: Uint8Array): Uint8Array[][] {
  const cuts: Uint8Array[][] = [[bytes], Array.from(bytes, (byte) => Uint8Array.of(byte))];
  for (let at = 1; at < bytes.length; at += 1) cuts.push([bytes.subarray(0, at), bytes.subarray(at)]);
  return cuts;
}

/** Chunks of a fixed size (the last may be shorter). */
export function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
export const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
