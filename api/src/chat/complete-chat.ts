import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import type { ChatRequest, ChatResult } from '../../../shared/src/providers/chat-types.ts';
import { demoChat } from '../../../shared/src/providers/demo/index.ts';
import { type ResolvedRoute, usableRoutes } from '../../../shared/src/providers/provider-registry.ts';
import {
  firstSuccessfulRoute,
  RouteFailure,
  readJsonBody,
  sendToRoute,
} from '../../../shared/src/upstream/route-attempts.ts';
import { failureFromStatus } from '../../../shared/src/upstream/upstream-failure.ts';
import type { AdmissionContext } from '../admission/admission-context.ts';
import { type ChatDeps, settleUsage } from './chat-context.ts';
import { chatIdentity, completionObject } from './chat-wire.ts';

export interface CompleteChatInput {
  readonly request: ChatRequest;
  readonly model: CatalogueModel;
  readonly admission: AdmissionContext;
  readonly requestId: string;
  /** Aborted when the client goes away: the upstream call is cancelled at once. */
  readonly signal: AbortSignal;
  /** When the request arrived (`performance.now()` time): a stream's time to first token counts from it. */
  readonly receivedAt: number;
}

/** A non-streamed chat completion: the first route that answers, charged once, as a ChatCompletion. */
export async function completeChat(deps: ChatDeps, input: CompleteChatInput) {
  const routes = usableRoutes(input.model.routes, deps.config, input.model.max_output_tokens);
  const { route: served, value: result } = await firstSuccessfulRoute(routes, 'chat', (route) =>
    callRoute(deps, route, input),
  );
  const costMicros = await settleUsage(deps, input.admission, input.model, result.usage, served.provider);
  return completionObject(chatIdentity(input.requestId, input.model.id, deps.now()), result, costMicros);
}

async function callRoute(
  deps: ChatDeps,
  route: ResolvedRoute,
  input: CompleteChatInput,
): Promise<ChatResult> {
  if (route.kind === 'demo') return demoChat.complete({ ...input.request, model: route.nativeModel });
  const chat = route.adapter.chat;
  if (chat === undefined)
    throw new RouteFailure(failureFromStatus(route.provider, 502, 'no chat capability'));
  const upstream = chat.request(input.request, route.target, { stream: false });
  const response = await sendToRoute(deps.client, route.provider, route.adapter, upstream, input.signal);
  return chat.response(await readJsonBody(response));
}
