import type { ChatRoute, ChatStream } from '../providers/chat-route.ts';
import type {
  ChatAdapter,
  ChatRequest,
  ChatResult,
  EmbeddingRequest,
  EmbeddingResult,
  ProviderAdapter,
  SseEvent,
  UpstreamRequest,
} from '../providers/chat-types.ts';
import { HttpRoute } from './http-route.ts';
import { RouteFailure, readJsonBody, sendToRoute } from './route-attempts.ts';
import { readSseEventBatches } from './sse-reader.ts';
import type { UpstreamResponse } from './upstream-client.ts';
import { failureFromStatus } from './upstream-failure.ts';

/**
 * A chat and embedding route over a provider's HTTP adapter: the adapter builds the request for
 * `target`, the client sends it, and the adapter reads the answer.
 */
export class HttpChatRoute extends HttpRoute<ProviderAdapter> implements ChatRoute {
  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
    const chat = this.chatAdapter();
    const response = await this.send(chat.request(request, this.target, { stream: false }), signal);
    return chat.response(await readJsonBody(response));
  }

  async stream(request: ChatRequest, signal: AbortSignal): Promise<ChatStream<SseEvent>> {
    const chat = this.chatAdapter();
    const response = await this.send(chat.request(request, this.target, { stream: true }), signal);
    return { batches: readSseEventBatches(response.body), translator: chat.stream() };
  }

  async embed(request: EmbeddingRequest, signal: AbortSignal): Promise<EmbeddingResult> {
    const embeddings = this.adapter.embeddings;
    if (embeddings === undefined)
      throw new RouteFailure(failureFromStatus(this.provider, 502, 'no embedding capability'));
    const response = await this.send(embeddings.request(request, this.target), signal);
    return embeddings.response(await readJsonBody(response), request);
  }

  private chatAdapter(): ChatAdapter {
    const chat = this.adapter.chat;
    if (chat === undefined)
      throw new RouteFailure(failureFromStatus(this.provider, 502, 'no chat capability'));
    return chat;
  }

  /** Resolves with a 2xx answer only (see `sendToRoute`). */
  private send(request: UpstreamRequest, signal: AbortSignal): Promise<UpstreamResponse> {
    return sendToRoute(this.client, this.provider, this.adapter, request, signal);
  }
}
