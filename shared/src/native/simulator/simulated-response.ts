import type { UpstreamResponse } from '../../upstream/upstream-client.ts';

/**
 * An upstream answer made in the process: what the native simulator returns in place of a
 * provider's HTTP response. Its body yields `chunks` one by one, as a provider's reads would
 * arrive (each stream event its own chunk), so relaying and usage observation run unchanged.
 */
export function simulatedResponse(
  contentType: string,
  chunks: readonly (string | Uint8Array)[],
  status = 200,
): UpstreamResponse {
  const bytes = chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk));
  const whole = () => Buffer.concat(bytes);
  const body = {
    async *[Symbol.asyncIterator]() {
      yield* bytes;
    },
    text: async () => whole().toString('utf8'),
    json: async (): Promise<unknown> => JSON.parse(whole().toString('utf8')),
    arrayBuffer: async () => {
      const all = whole();
      return all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
    },
    dump: async () => undefined,
  };
  return { status, headers: { 'content-type': contentType }, body };
}

/** A whole JSON answer. */
export function simulatedJson(body: unknown, status = 200): UpstreamResponse {
  return simulatedResponse('application/json', [JSON.stringify(body)], status);
}
