import { jsonCharacterCount } from '../../../shared/src/billing/hold-estimate.ts';
import { observeTimeToFirstToken } from '../../../shared/src/observability/http-metrics.ts';
import {
  type ChatChunk,
  type ChatStreamTranslator,
  type NormalizedUsage,
  type SseEvent,
  UpstreamStreamError,
} from '../../../shared/src/providers/chat-types.ts';
import { demoChat } from '../../../shared/src/providers/demo/index.ts';
import { type ResolvedRoute, usableRoutes } from '../../../shared/src/providers/provider-registry.ts';
import {
  firstSuccessfulRoute,
  RouteFailure,
  sendToRoute,
} from '../../../shared/src/upstream/route-attempts.ts';
import { readSseEventBatches } from '../../../shared/src/upstream/sse-reader.ts';
import { failureFromStatus } from '../../../shared/src/upstream/upstream-failure.ts';
import { type ChatDeps, settleUsage } from './chat-context.ts';
import {
  type ChatIdentity,
  chatIdentity,
  chunkLineWriter,
  SSE_DONE,
  sseData,
  streamErrorObject,
  usageChunkObject,
} from './chat-wire.ts';
import type { CompleteChatInput } from './complete-chat.ts';

/** Where a stream's chunks come from once a route answered 200 (`provider`: that route's). */
type StreamSource =
  | {
      readonly kind: 'demo';
      readonly provider: string;
      readonly chunks: readonly ChatChunk[];
      readonly usage: NormalizedUsage;
    }
  | {
      readonly kind: 'http';
      readonly provider: string;
      /** The events of each upstream read together, relayed to the client in one write. */
      readonly batches: AsyncIterable<readonly SseEvent[]>;
      readonly translator: ChatStreamTranslator;
    };

/**
 * Opens a streamed chat completion. Routes are tried (with fallback) until one answers 200, before
 * any byte goes to the client, so failures up to then are ordinary HTTP errors. The returned
 * generator yields the `data:` lines; see `relay` for what happens after the first byte.
 */
export async function openChatStream(
  deps: ChatDeps,
  input: CompleteChatInput,
): Promise<AsyncGenerator<string>> {
  const routes = usableRoutes(input.model.routes, deps.config, input.model.max_output_tokens);
  const { value: source } = await firstSuccessfulRoute(routes, 'chat', (route) =>
    openRoute(deps, route, input),
  );
  return relay(deps, input, source, chatIdentity(input.requestId, input.model.id, deps.now()));
}

async function openRoute(
  deps: ChatDeps,
  route: ResolvedRoute,
  input: CompleteChatInput,
): Promise<StreamSource> {
  if (route.kind === 'demo')
    return {
      kind: 'demo',
      provider: route.provider,
      ...demoChat.stream({ ...input.request, model: route.nativeModel }),
    };
  const chat = route.adapter.chat;
  if (chat === undefined)
    throw new RouteFailure(failureFromStatus(route.provider, 502, 'no chat capability'));
  const upstream = chat.request(input.request, route.target, { stream: true });
  const response = await sendToRoute(deps.client, route.provider, route.adapter, upstream, input.signal);
  return {
    kind: 'http',
    provider: route.provider,
    batches: readSseEventBatches(response.body),
    translator: chat.stream(),
  };
}

/**
 * Relays chunks to the client. At the end it charges the usage the upstream reported, sends the
 * usage chunk when the client asked for it (with the cost as the `service` extension), then
 * `[DONE]`. A failure after the first byte becomes an error event and `[DONE]`, and nothing is
 * charged. When the client goes away the upstream call is aborted and only the tokens the upstream
 * reported until then are charged (none, if it reported none).
 */
async function* relay(
  deps: ChatDeps,
  input: CompleteChatInput,
  source: StreamSource,
  identity: ChatIdentity,
): AsyncGenerator<string> {
  let outcome: 'completed' | 'failed' | 'gone' = 'gone';
  let usage: NormalizedUsage | undefined;
  let deliveredCharacters = 0;
  let awaitingFirstToken = true;
  const chunkLine = chunkLineWriter(identity);
  try {
    if (source.kind === 'demo') {
      observeFirstToken(input);
      for (const chunk of source.chunks) yield chunkLine(chunk);
      usage = source.usage;
    } else {
      for await (const events of source.batches) {
        // What one upstream read brought goes out in one write: a socket write per event costs
        // the api more than the rest of relaying it.
        let lines = '';
        try {
          for (const event of events) {
            for (const chunk of source.translator.onEvent(event)) {
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
      usage = source.translator.finish().usage ?? estimatedUsage(input, deliveredCharacters);
    }
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
    if (outcome === 'gone') await chargeReportedUsage(deps, input, source);
  }
  const billed = usage ?? estimatedUsage(input, deliveredCharacters);
  const costMicros = await settleUsage(deps, input.admission, input.model, billed, source.provider);
  // The usage chunk and the terminator in one write (each yield is a socket write of its own).
  yield input.request.stream_options?.include_usage
    ? sseData(usageChunkObject(identity, billed, costMicros)) + SSE_DONE
    : SSE_DONE;
}

/** After a client disconnect: the tokens the upstream reported so far, if any, are charged. */
async function chargeReportedUsage(
  deps: ChatDeps,
  input: CompleteChatInput,
  source: StreamSource,
): Promise<void> {
  const reported = source.kind === 'http' ? source.translator.finish().usage : undefined;
  if (reported === undefined || reported.inputTokens + reported.outputTokens === 0) return;
  await settleUsage(deps, input.admission, input.model, reported, source.provider);
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
