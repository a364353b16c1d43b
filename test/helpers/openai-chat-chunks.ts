/** Server-sent events of an OpenAI chat completion stream, for tests of the relays over a scripted upstream. */

/** One `data:` event. */
export const openaiSse = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;

/** A chunk carrying `content`. */
export const openaiDelta = (content: string): string =>
  openaiSse({
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  });

/** The chunk with the finish reason. */
export const OPENAI_STOP = openaiSse({
  id: 'c1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
});

/** The usage chunk (`stream_options.include_usage`): 7 tokens in, 3 out. */
export const OPENAI_USAGE = openaiSse({
  id: 'c1',
  object: 'chat.completion.chunk',
  choices: [],
  usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
});
