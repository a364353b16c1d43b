/**
 * Upstream bodies as the providers document them (API reference examples, reshaped only where a
 * test needs a second tool call or a usage detail). Source noted on each.
 */
import type { ChatRequest } from '../../../../../shared/src/providers/chat-types.ts';

/** OpenAI API reference, Create chat completion, default example response. */
export const openaiCompletion = {
  id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
  object: 'chat.completion',
  created: 1741569952,
  model: 'gpt-4.1-2025-04-14',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Hello! How can I assist you today?',
        refusal: null,
        annotations: [],
      },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 19,
    completion_tokens: 10,
    total_tokens: 29,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  },
  service_tier: 'default',
};

/** OpenAI function-calling guide: a completion with tool calls (two, parallel). */
export const openaiToolCallCompletion = {
  id: 'chatcmpl-abc123',
  object: 'chat.completion',
  created: 1699896916,
  model: 'gpt-4o-mini',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_abc123',
            type: 'function',
            function: { name: 'get_current_weather', arguments: '{\n"location": "Boston, MA"\n}' },
          },
          {
            id: 'call_def456',
            type: 'function',
            function: { name: 'get_current_weather', arguments: '{"location": "Paris"}' },
          },
        ],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 82, completion_tokens: 17, total_tokens: 99 },
};

/** OpenAI reasoning guide: o-series usage, reasoning tokens counted inside completion_tokens. */
export const openaiReasoningUsage = {
  prompt_tokens: 1124,
  completion_tokens: 1186,
  total_tokens: 2310,
  prompt_tokens_details: { cached_tokens: 1024 },
  completion_tokens_details: { reasoning_tokens: 1024 },
};

/** OpenAI web search guide (Chat Completions, gpt-4o-search-preview): url_citation annotations. */
export const openaiSearchCompletion = {
  id: 'chatcmpl-search',
  object: 'chat.completion',
  created: 1741569952,
  model: 'gpt-4o-search-preview',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'A positive news story: a new park opened.',
        annotations: [
          {
            type: 'url_citation',
            url_citation: {
              end_index: 40,
              start_index: 0,
              title: 'Park opens',
              url: 'https://news.example.org/park',
            },
          },
        ],
      },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 12, total_tokens: 22 },
};

/** DeepSeek API docs, deepseek-reasoner: reasoning_content and context-cache usage fields. */
export const deepseekReasonerCompletion = {
  id: '930c60df-bf64-41c9-a88e-3ec75f81e00e',
  object: 'chat.completion',
  created: 1705651092,
  model: 'deepseek-reasoner',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: '9.11 is smaller.',
        reasoning_content: 'Compare 9.11 and 9.8 ...',
      },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 16,
    completion_tokens: 108,
    total_tokens: 124,
    prompt_cache_hit_tokens: 0,
    prompt_cache_miss_tokens: 16,
    completion_tokens_details: { reasoning_tokens: 96 },
  },
};

/** xAI via Vertex's Grok reasoning page: reasoning tokens reported on top of completion_tokens. */
export const xaiReasoningCompletion = {
  id: 'knTMaJC0EJfM5OMP7I3xkAk',
  object: 'chat.completion',
  created: 1775523905,
  model: 'grok-4-1-fast-reasoning',
  choices: [
    {
      finish_reason: 'stop',
      index: 0,
      logprobs: null,
      message: { content: 'I am Grok, an AI assistant built by xAI...', role: 'assistant' },
    },
  ],
  system_fingerprint: 'fp_39c5j0a324',
  usage: {
    completion_tokens: 50,
    completion_tokens_details: { accepted_prediction_tokens: 0, audio_tokens: 0, reasoning_tokens: 124 },
    num_sources_used: 0,
    prompt_tokens: 663,
    prompt_tokens_details: { audio_tokens: 0, cached_tokens: 654, image_tokens: 0, text_tokens: 663 },
    total_tokens: 837,
  },
  citations: ['https://x.ai/news', 'https://docs.x.ai/overview'],
};

/** Mistral reasoning docs (magistral): content as thinking and text chunks. */
export const mistralThinkingCompletion = {
  id: 'cmpl-mistral',
  object: 'chat.completion',
  model: 'magistral-medium-latest',
  created: 1759000000,
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        tool_calls: null,
        content: [
          { type: 'thinking', thinking: [{ type: 'text', text: 'Let me count the letters.' }] },
          { type: 'text', text: 'There are 3.' },
        ],
      },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 12, total_tokens: 40, completion_tokens: 28 },
};

/** Mistral function calling docs: arguments may arrive as an object; no `type`. */
export const mistralToolCompletion = {
  id: 'cmpl-tool',
  object: 'chat.completion',
  model: 'mistral-large-latest',
  created: 1759000000,
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id: 'D681PevKs',
            function: { name: 'retrieve_payment_status', arguments: { transaction_id: 'T1001' } },
          },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 100, total_tokens: 130, completion_tokens: 30 },
};

/** Groq reasoning docs (gpt-oss, reasoning_format parsed): `message.reasoning`. */
export const groqReasoningCompletion = {
  id: 'chatcmpl-groq',
  object: 'chat.completion',
  created: 1759000000,
  model: 'openai/gpt-oss-20b',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Paris.', reasoning: 'The capital of France is Paris.' },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    queue_time: 0.02,
    prompt_tokens: 80,
    prompt_time: 0.01,
    completion_tokens: 30,
    completion_time: 0.03,
    total_tokens: 110,
    total_time: 0.04,
  },
  x_groq: { id: 'req_01' },
};

/** A request using every field of the spec's chat request table. */
export function fullRequest(): ChatRequest {
  return {
    model: 'openai/gpt-5',
    messages: [
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }], name: 'alice' },
    ],
    stream: true,
    stream_options: { include_usage: false },
    max_tokens: 100,
    temperature: 0.5,
    top_p: 0.9,
    frequency_penalty: 0.1,
    presence_penalty: 0.2,
    stop: ['END'],
    seed: 42,
    n: 1,
    user: 'user-1',
    tools: [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'w', strict: true, schema: { type: 'object' } },
    },
    reasoning_effort: 'low',
    web_search: true,
    web_search_options: { search_context_size: 'low' },
    logprobs: true,
    top_logprobs: 2,
    logit_bias: { '50256': -100 },
  };
}
