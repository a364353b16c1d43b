import type { ChatRequest } from '../../../shared/src/providers/chat-types.ts';
import { usableRoutes } from '../../../shared/src/providers/provider-registry.ts';
import { firstSuccessfulRoute } from '../../../shared/src/upstream/route-attempts.ts';
import { type ChatDeps, type ModelCallInput, settleUsage } from '../chat/chat-context.ts';
import { chatIdentity, completionObject } from '../chat/chat-wire.ts';

export interface CompleteChatInput extends ModelCallInput {
  readonly request: ChatRequest;
  readonly requestId: string;
  /** When the request arrived (`performance.now()` time): a stream's time to first token counts from it. */
  readonly receivedAt: number;
  /** Aborted when the api stops: an open stream then ends with an error event (`app.stopping`). */
  readonly stopping: AbortSignal;
}

/** A non-streamed chat completion: the first route that answers, charged once, as a ChatCompletion. */
export async function completeChat(deps: ChatDeps, input: CompleteChatInput) {
  const routes = usableRoutes(input.model, deps);
  const { route: served, value: result } = await firstSuccessfulRoute(
    routes,
    'chat',
    (route) => route.complete(input.request, input.signal),
    input.admission.draft,
  );
  const costMicros = await settleUsage(deps, input.admission, input.model, result.usage, served.provider);
  return completionObject(chatIdentity(input.requestId, input.model.id, deps.now()), result, costMicros);
}
