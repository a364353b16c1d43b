import { jsonCharacterCount } from '../../../shared/src/billing/hold-estimate.ts';
import { observeTimeToFirstToken } from '../../../shared/src/observability/http-metrics.ts';
import type { ChatStream } from '../../../shared/src/providers/chat-route.ts';
import {
  type ChatChunk,
  type NormalizedUsage,
  UpstreamStreamError,
} from '../../../shared/src/providers/chat-types.ts';
import { usableRoutes } from '../../../shared/src/providers/provider-registry.ts';
import { firstSuccessfulRoute } from '../../../shared/src/upstream/route-attempts.ts';
import { type ChatDeps, settleUsage } from '../chat/chat-context.ts';
import {
  type ChatIdentity,
  chatIdentity,
  chunkLineWriter,
  SSE_DONE,
  sseData,
  streamErrorObject,
  usageChunkObject,
} from '../chat/chat-wire.ts';
import type { CompleteChatInput } from './complete-chat.ts';

/**
 * Opens a streamed chat completion. Routes are tried (with fallback) until one answers 200, before
 * any byte goes to the client, so failures up to then are ordinary HTTP errors. The returned
 * generator yields the `data:` lines; see `relay` for what happens after the first byte.
 */
export async function openChatStream(
  deps: ChatDeps,
  input: CompleteChatInput,
): Promise<AsyncGenerator<string>> {
  const routes = usableRoutes(input.model.routes, deps, input.model.max_output_tokens);
  const { route: served, value: stream } = await firstSuccessfulRoute(routes, 'chat', (route) =>
    route.stream(input.request, input.signal),
  );
  const identity = chatIdentity(input.requestId, input.model.id, deps.now());
  return relay(deps, input, served.provider, stream, identity);
}

/**
 * Relays chunks to the client. At the end it charges the usage the upstream reported, sends the
 * usage chunk when the client asked for it (with the cost as the `service` extension), then
 * `[DONE]`. A failure after the first byte becomes an error event and `[DONE]`, and nothing is
 * charged. When the client goes away the upstream call is aborted and only the tokens the upstream
 * reported until then are charged (none, if it reported none).
 */
async function* relay<E>(
  deps: ChatDeps,
  input: CompleteChatInput,
  provider: string,
  stream: ChatStream<E>,
  identity: ChatIdentity,
): AsyncGenerator<string> {
  let outcome: 'completed' | 'failed' | 'gone' = 'gone';
  let usage: NormalizedUsage | undefined;
  let deliveredCharacters = 0;
  let awaitingFirstToken = true;
  const chunkLine = chunkLineWriter(identity);
  try {
    for await (const events of stream.batches) {
      // What one upstream read brought goes out in one write: a socket write per event costs
      // the api more than the rest of relaying it. Index loops: no iterator objects per event.
      let lines = '';
      try {
        for (let e = 0; e < events.length; e += 1) {
          const chunks = stream.translator.onEvent(events[e] as E);
          for (let c = 0; c < chunks.length; c += 1) {
            const chunk = chunks[c] as ChatChunk;
            deliveredCharacters += chunkCharacters(chunk);
            lines += chunkLine(chunk);
          }
        }
      } catch (err) {
        // An event that breaks the stream: the chunks before it still reach the client first.
        if (lines !== '') yield lines;
        throw err;
      }
      if (lines === '') continue;
      if (awaitingFirstToken) {
        awaitingFirstToken = false;
        observeFirstToken(input);
      }
      yield lines;
    }
    usage = stream.translator.finish().usage ?? estimatedUsage(input, deliveredCharacters);
    outcome = 'completed';
  } catch (err) {
    if (input.signal.aborted) return;
    outcome = 'failed';
    const status = err instanceof UpstreamStreamError ? err.status : 502;
    const message = err instanceof UpstreamStreamError ? err.message : 'The provider stream broke off.';
    // One write: the error event and the terminator.
    yield sseData(streamErrorObject(status, message)) + SSE_DONE;
    return;
  } finally {
    if (outcome === 'gone') await chargeReportedUsage(deps, input, provider, stream);
  }
  const billed = usage ?? estimatedUsage(input, deliveredCharacters);
  const costMicros = await settleUsage(deps, input.admission, input.model, billed, provider);
  // The usage chunk and the terminator in one write (each yield is a socket write of its own).
  yield input.request.stream_options?.include_usage
    ? sseData(usageChunkObject(identity, billed, costMicros)) + SSE_DONE
    : SSE_DONE;
}

/** After a client disconnect: the tokens the upstream reported so far, if any, are charged. */
async function chargeReportedUsage<E>(
  deps: ChatDeps,
  input: CompleteChatInput,
  provider: string,
  stream: ChatStream<E>,
): Promise<void> {
  const reported = stream.translator.finish().usage;
  if (reported === undefined || reported.inputTokens + reported.outputTokens === 0) return;
  await settleUsage(deps, input.admission, input.model, reported, provider);
}

/** Records how long the stream took, since its request arrived, to relay its first chunk. */
function observeFirstToken(input: CompleteChatInput): void {
  observeTimeToFirstToken(input.model.id, (performance.now() - input.receivedAt) / 1000);
}

/**
 * Usage for a stream whose upstream reported none (every adapter asks for it, so this is a
 * safety net): one token per 4 characters of the request's messages and of what was delivered.
 */
function estimatedUsage(input: CompleteChatInput, deliveredCharacters: number): NormalizedUsage {
  const inputCharacters = jsonCharacterCount(input.request.messages);
  return {
    inputTokens: Math.ceil(inputCharacters / 4),
    cachedInputTokens: 0,
    outputTokens: Math.ceil(deliveredCharacters / 4),
    reasoningTokens: 0,
  };
}

function chunkCharacters(chunk: ChatChunk): number {
  let characters = 0;
  for (const { delta } of chunk.choices) {
    characters += (delta.content?.length ?? 0) + (delta.reasoning_content?.length ?? 0);
    for (const call of delta.tool_calls ?? []) characters += call.function?.arguments?.length ?? 0;
  }
  return characters;
}
