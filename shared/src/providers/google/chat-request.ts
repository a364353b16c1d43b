/**
 * Chat request to a Gemini `generateContent` / `streamGenerateContent` call.
 * Request body as documented at https://ai.google.dev/api/generate-content#request-body.
 *
 * Dropped on purpose (no Gemini equivalent, no effect on price or on the meaning of the answer):
 * `user`, `stream_options` (Gemini always reports usage), message `name`, tool `strict`,
 * `parallel_tool_calls` (Gemini decides itself whether to call several functions),
 * `web_search_options`. Rejected: see request-config.ts.
 */
import type { ChatRequest, UpstreamRequest, UpstreamTarget } from '../chat-types.ts';
import { chatUrl, geminiHeaders } from './api.ts';
import { generationConfigOf, rejectUnsupported, toolConfigOf, toolsOf } from './request-config.ts';
import { contentsOf } from './request-contents.ts';
import { isGemini3OrLater } from './thinking.ts';
import type { GeminiGenerateContentRequest } from './wire-request.ts';

/** The Gemini request body for a chat request (pure; throws UnsupportedFeatureError). */
export function toGenerateContentBody(
  request: ChatRequest,
  nativeModel: string,
): GeminiGenerateContentRequest {
  rejectUnsupported(request);
  const body: GeminiGenerateContentRequest = contentsOf(request.messages, {
    requiresThoughtSignatures: isGemini3OrLater(nativeModel),
  });
  const tools = toolsOf(request);
  if (tools) body.tools = tools;
  const toolConfig = toolConfigOf(request.tool_choice, (request.tools ?? []).length > 0);
  if (toolConfig) body.toolConfig = toolConfig;
  const generationConfig = generationConfigOf(request, nativeModel);
  if (generationConfig) body.generationConfig = generationConfig;
  return body;
}

/** The HTTP request for a chat request, streamed (SSE) or not. */
export function toChatUpstreamRequest(
  request: ChatRequest,
  target: UpstreamTarget,
  options: { stream: boolean },
): UpstreamRequest {
  return {
    url: chatUrl(target, options.stream),
    headers: geminiHeaders(target.apiKey),
    body: JSON.stringify(toGenerateContentBody(request, target.nativeModel)),
  };
}
