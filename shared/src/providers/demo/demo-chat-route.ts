/**
 * The demo simulator as a chat and embedding route: the same calls as an HTTP route's
 * (`upstream/http-chat-route.ts`), answered in the process. The request goes to the simulator with
 * the route's native model id.
 */
import type { ChatRoute, ChatStream } from '../chat-route.ts';
import type {
  ChatChunk,
  ChatRequest,
  ChatResult,
  EmbeddingRequest,
  EmbeddingResult,
  NormalizedUsage,
} from '../chat-types.ts';
import { demoChat } from './demo-chat.ts';
import { demoEmbeddings } from './demo-embeddings.ts';

export class DemoChatRoute implements ChatRoute {
  readonly provider = 'demo';
  readonly nativeModel: string;

  constructor(nativeModel: string) {
    this.nativeModel = nativeModel;
  }

  async complete(request: ChatRequest): Promise<ChatResult> {
    return demoChat.complete({ ...request, model: this.nativeModel });
  }

  async stream(request: ChatRequest): Promise<ChatStream<ChatChunk>> {
    const { chunks, usage } = demoChat.stream({ ...request, model: this.nativeModel });
    return demoChatStream(chunks, usage);
  }

  async embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
    return demoEmbeddings.embed({ ...request, model: this.nativeModel });
  }
}

/**
 * The simulator's answer as a stream whose events are its chunks: one chunk a batch, so each goes
 * to the client in a write of its own. The usage is reported once every chunk was read; a client
 * gone before then is charged nothing.
 */
export function demoChatStream(chunks: readonly ChatChunk[], usage: NormalizedUsage): ChatStream<ChatChunk> {
  let delivered = false;
  function* batches(): Generator<readonly ChatChunk[]> {
    for (const chunk of chunks) yield [chunk];
    delivered = true;
  }
  return {
    batches: batches(),
    translator: {
      onEvent: (chunk) => [chunk],
      finish: () => ({ usage: delivered ? usage : undefined }),
    },
  };
}
