/**
 * The chat and embedding capabilities of a resolved route, as the use cases call them: they never
 * know whether an HTTP adapter (`upstream/http-chat-route.ts`) or the offline demo simulator
 * (`demo/demo-chat-route.ts`) answers. A call fails as `firstSuccessfulRoute` expects: a
 * `RouteFailure`, transport, protocol or unsupported-feature error.
 */
import type {
  ChatRequest,
  ChatResult,
  ChatStreamTranslator,
  EmbeddingRequest,
  EmbeddingResult,
} from './chat-types.ts';
import type { RouteIdentity } from './route-identity.ts';

/**
 * A chat stream once its route answered: its events, in the batches they arrived in (the chunks of
 * one batch reach the client in one write), and the translator that turns each event into chunks
 * and reports the usage. `E` is the route's own event type (an SSE event for an HTTP upstream): a
 * stream's events only ever go to that stream's translator.
 */
export interface ChatStream<E = unknown> {
  readonly batches: AsyncIterable<readonly E[]> | Iterable<readonly E[]>;
  readonly translator: ChatStreamTranslator<E>;
}

export interface ChatCaller {
  /** A non-streamed answer. */
  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResult>;
  /** Resolves once the route answered (before any chunk is read), with its stream. */
  stream(request: ChatRequest, signal: AbortSignal): Promise<ChatStream>;
}

export interface EmbeddingsCaller {
  embed(request: EmbeddingRequest, signal: AbortSignal): Promise<EmbeddingResult>;
}

/** A chat or embedding model's route, ready to call. */
export interface ChatRoute extends RouteIdentity, ChatCaller, EmbeddingsCaller {}
