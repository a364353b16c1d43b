/**
 * The text the native simulator answers: the demo chat simulator's answer (`demo-chat.ts`:
 * `Demo answer to: <the first 200 characters of the question>`, cut to the output bound) to the
 * last user text, and tokens by the demo rule (`demo-tokens.ts`) over every text of the request.
 */
import { demoChat, demoPieces } from '../../providers/demo/demo-chat.ts';
import { demoTokens } from '../../providers/demo/demo-tokens.ts';
import { isObject } from '../native-usage.ts';

/** Stream pieces of a simulated answer. */
const STREAM_PIECES = 4;

export interface DemoReply {
  readonly text: string;
  /** The text in the pieces a stream sends it in. */
  readonly pieces: readonly string[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Whether the output bound cut the answer. */
  readonly truncated: boolean;
}

/** The reply to `question`, whose request holds `inputText` in all, under an output bound. */
export function demoReply(question: string, inputText: string, maxOutputTokens: unknown): DemoReply {
  const cap = typeof maxOutputTokens === 'number' && maxOutputTokens >= 0 ? maxOutputTokens : undefined;
  const { choices, usage } = demoChat.complete({
    model: 'demo',
    messages: [{ role: 'user', content: question }],
    ...(cap === undefined ? {} : { max_tokens: cap }),
  });
  const text = choices[0]?.message.content ?? '';
  return {
    text,
    pieces: demoPieces(text, STREAM_PIECES),
    inputTokens: demoTokens(inputText),
    outputTokens: usage.outputTokens,
    truncated: choices[0]?.finish_reason === 'length',
  };
}

/** Every string under a `text`, `content`, `input`, `system` or `instructions` key, in order. */
export function textsOf(value: unknown, key = ''): string[] {
  if (typeof value === 'string') return TEXT_KEYS.has(key) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => textsOf(item, key));
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([name, item]) => textsOf(item, name));
}

const TEXT_KEYS = new Set(['text', 'content', 'input', 'system', 'instructions']);
