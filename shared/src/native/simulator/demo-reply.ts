/**
 * The text the native simulator answers, by the demo provider's rules (`demo-chat.ts`,
 * `demo-tokens.ts`): `Demo answer to: <the first 200 characters of the last user text>`, cut to
 * the request's output bound (4 characters a token), and tokens = ceil(characters / 4) for the
 * input (every text of the request) and the output.
 */
import { demoPieces } from '../../providers/demo/demo-chat.ts';
import { demoTokens } from '../../providers/demo/demo-tokens.ts';
import { isObject } from '../native-usage.ts';

const QUOTE_LENGTH = 200;
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
  let text = `Demo answer to: ${question.slice(0, QUOTE_LENGTH)}`;
  const cap = typeof maxOutputTokens === 'number' && maxOutputTokens >= 0 ? maxOutputTokens : undefined;
  const truncated = cap !== undefined && demoTokens(text) > cap;
  if (truncated) text = text.slice(0, cap * 4);
  return {
    text,
    pieces: demoPieces(text, STREAM_PIECES),
    inputTokens: demoTokens(inputText),
    outputTokens: demoTokens(text),
    truncated,
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
