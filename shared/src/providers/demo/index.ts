/**
 * The built-in `demo` provider: an offline, deterministic simulator of chat (streamed or not,
 * tools, json_schema, reasoning) and embeddings, so the gateway's quick start works with no
 * internet. It answers in the process, not over HTTP: the registry resolves a `demo` route to a
 * `DemoChatRoute` (`demo-chat-route.ts`), called like any HTTP route.
 */
import { demoChat } from './demo-chat.ts';
import { demoEmbeddings } from './demo-embeddings.ts';

export { demoChat } from './demo-chat.ts';
export { DEMO_DEFAULT_DIMENSIONS, DEMO_MAX_DIMENSIONS, demoEmbeddings } from './demo-embeddings.ts';
export { demoInputTokens, demoTokens } from './demo-tokens.ts';

/** Both demo capabilities under one name. */
export const demoProvider = { chat: demoChat, embeddings: demoEmbeddings };
