/**
 * Tool-call ids for Gemini function calls. Gemini gives none (or an optional `functionCall.id`), so
 * the adapter derives a deterministic one from the candidate and call position. Gemini 3 also
 * returns a `thoughtSignature` on function-call parts that must come back verbatim in the next
 * request (https://ai.google.dev/gemini-api/docs/thought-signatures), and the chat-completion
 * convention has no field for it: the signature rides inside the tool-call id, which every client
 * echoes back unchanged as `tool_calls[].id` and `tool_call_id`.
 */

/** Separator between the id proper and the signature (the convention other gateways use too). */
const SIGNATURE_MARK = '__thought__';

/** Documented placeholder for a function call whose signature is unknown (history from elsewhere). */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** The id a client sees for the `n`-th function call of a candidate. */
export function toolCallId(
  candidateIndex: number,
  n: number,
  upstreamId: string | undefined,
  signature: string | undefined,
): string {
  const base = upstreamId && upstreamId.length > 0 ? upstreamId : `call_${candidateIndex}_${n}`;
  return signature ? `${base}${SIGNATURE_MARK}${signature}` : base;
}

/** The thought signature carried in a tool-call id, if any. */
export function signatureOf(id: string): string | undefined {
  const at = id.indexOf(SIGNATURE_MARK);
  if (at < 0) return undefined;
  const signature = id.slice(at + SIGNATURE_MARK.length);
  return signature.length > 0 ? signature : undefined;
}
