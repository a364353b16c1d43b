import { describe, expect, it } from 'vitest';
import { createAnthropicAdapter } from '../../../../../shared/src/providers/anthropic/index.ts';
import type { ChatRequest } from '../../../../../shared/src/providers/chat-types.ts';
import { body, build, refusal, target, weatherTool } from './request-helpers.ts';

describe('Anthropic chat request: tools', () => {
  it('maps tools to input_schema and every tool_choice form', () => {
    const mapped = body({ tools: [weatherTool, { type: 'function', function: { name: 'now' } }] });
    expect(mapped.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather for a city',
        input_schema: weatherTool.function.parameters,
      },
      { name: 'now', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(mapped.tool_choice).toBeUndefined();
    const choice = (tool_choice: ChatRequest['tool_choice'], parallel_tool_calls?: boolean) =>
      body({ tools: [weatherTool], tool_choice, parallel_tool_calls }).tool_choice;
    expect(choice('auto')).toEqual({ type: 'auto' });
    expect(choice('none')).toEqual({ type: 'none' });
    expect(choice('required')).toEqual({ type: 'any' });
    expect(choice({ type: 'function', function: { name: 'get_weather' } })).toEqual({
      type: 'tool',
      name: 'get_weather',
    });
    expect(choice('required', false)).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(choice(undefined, false)).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(choice(undefined, true)).toBeUndefined();
  });

  it('passes strict only to models with strict tool use', () => {
    const strictTool = { type: 'function' as const, function: { ...weatherTool.function, strict: true } };
    expect(body({ tools: [strictTool] }, 'claude-haiku-4-5-20251001').tools).toMatchObject([
      { strict: true },
    ]);
    expect(body({ tools: [strictTool] }, 'claude-3-5-haiku-20241022').tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather for a city',
        input_schema: weatherTool.function.parameters,
      },
    ]);
  });

  it('adds the web search server tool with max_uses and the user location', () => {
    const mapped = body({
      web_search: true,
      web_search_options: {
        search_context_size: 'high',
        user_location: {
          type: 'approximate',
          approximate: { city: 'Tehran', country: 'IR', timezone: 'Asia/Tehran' },
        },
      },
    });
    expect(mapped.tools).toEqual([
      {
        type: 'web_search_20250305',
        name: 'web_search',
        max_uses: 5,
        user_location: { type: 'approximate', city: 'Tehran', country: 'IR', timezone: 'Asia/Tehran' },
      },
    ]);
    expect(body({ web_search: false, web_search_options: {} }).tools).toBeUndefined();
  });

  it('refuses a client tool named like the JSON-output tool', () => {
    const reserved = { type: 'function' as const, function: { name: 'respond_with_json' } };
    expect(refusal({ tools: [reserved] }).param).toBe('tools[0].function.name');
  });
});

describe('Anthropic chat request: sampling and limits', () => {
  it('maps stop, temperature, top_p, max tokens and user', () => {
    expect(
      body({ stop: 'END', temperature: 0.2, top_p: 0.9, max_tokens: 100, user: 'user-42', seed: 7 }),
    ).toMatchObject({
      stop_sequences: ['END'],
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 100,
      metadata: { user_id: 'user-42' },
    });
    expect(body({ stop: ['a', 'b'], max_tokens: 100, max_completion_tokens: 50 })).toMatchObject({
      stop_sequences: ['a', 'b'],
      max_tokens: 50,
    });
    expect(body({ seed: 7, stream_options: { include_usage: true }, n: 1 })).not.toHaveProperty('seed');
  });

  it('uses the configured default max_tokens, or the model limit the target carries', () => {
    // biome-ignore lint/style/noNonNullAssertion: the Anthropic adapter always has chat.
    const chat = createAnthropicAdapter({ defaultMaxTokens: 1000 }).chat!;
    const hi: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };
    expect(JSON.parse(chat.request(hi, target, { stream: false }).body).max_tokens).toBe(1000);
    const withLimit = { ...target, maxOutputTokens: 64000 };
    expect(JSON.parse(chat.request(hi, withLimit, { stream: false }).body).max_tokens).toBe(64000);
    expect(() => createAnthropicAdapter({ defaultMaxTokens: 0 })).toThrow(RangeError);
  });

  it('refuses what would change the answer or its price', () => {
    expect(refusal({ n: 2 }).param).toBe('n');
    expect(refusal({ logprobs: true }).param).toBe('logprobs');
    expect(refusal({ top_logprobs: 3 }).param).toBe('top_logprobs');
    expect(refusal({ logit_bias: { '50256': -100 } }).param).toBe('logit_bias');
    expect(refusal({ frequency_penalty: 0.5 }).param).toBe('frequency_penalty');
    expect(refusal({ presence_penalty: -1 }).param).toBe('presence_penalty');
    expect(refusal({ temperature: 1.5 }).message).toMatch(/temperature.*0 to 1/);
    expect(() =>
      build({ logprobs: false, frequency_penalty: 0, presence_penalty: 0, logit_bias: {}, temperature: 1 }),
    ).not.toThrow();
  });
});

describe('Anthropic chat request: reasoning_effort', () => {
  it('maps each effort to a thinking budget under max_tokens', () => {
    const plan = (reasoning_effort: ChatRequest['reasoning_effort']) => {
      const mapped = body({ reasoning_effort });
      return [mapped.thinking, mapped.max_tokens];
    };
    expect(plan('none')).toEqual([undefined, 4096]);
    expect(plan('minimal')).toEqual([{ type: 'enabled', budget_tokens: 1024 }, 5120]);
    expect(plan('low')).toEqual([{ type: 'enabled', budget_tokens: 2048 }, 6144]);
    expect(plan('medium')).toEqual([{ type: 'enabled', budget_tokens: 8192 }, 12288]);
    expect(plan('high')).toEqual([{ type: 'enabled', budget_tokens: 16384 }, 20480]);
    expect(plan('xhigh')).toEqual([{ type: 'enabled', budget_tokens: 24576 }, 28672]);
    expect(plan('max')).toEqual([{ type: 'enabled', budget_tokens: 28000 }, 32000]);
  });

  it('fits the budget under the client max_tokens, never raising it, and refuses below the minimum', () => {
    expect(body({ reasoning_effort: 'high', max_tokens: 3000 })).toMatchObject({
      max_tokens: 3000,
      thinking: { type: 'enabled', budget_tokens: 2999 },
    });
    expect(refusal({ reasoning_effort: 'low', max_tokens: 1024 }).param).toBe('max_tokens');
  });

  it('does not think on a request that carries the results of a tool loop', () => {
    const mapped = body({
      reasoning_effort: 'high',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: '18C' },
      ],
    });
    expect(mapped.thinking).toBeUndefined();
  });

  it('refuses temperature and forced tool use together with thinking', () => {
    expect(refusal({ reasoning_effort: 'low', temperature: 0.5 }).param).toBe('temperature');
    expect(refusal({ reasoning_effort: 'low', tools: [weatherTool], tool_choice: 'required' }).param).toBe(
      'tool_choice',
    );
    expect(body({ reasoning_effort: 'low', temperature: 1 }).temperature).toBe(1);
  });
});

describe('Anthropic chat request: response_format', () => {
  const schema = {
    type: 'object',
    properties: { answer: { type: 'string' } },
    required: ['answer'],
    additionalProperties: false,
  };
  const jsonSchema: ChatRequest['response_format'] = {
    type: 'json_schema',
    json_schema: { name: 'reply', strict: true, schema },
  };

  it('uses output_config.format on models with structured outputs', () => {
    const mapped = body({ response_format: jsonSchema }, 'claude-opus-4-5-20251101');
    expect(mapped.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(mapped.tools).toBeUndefined();
  });

  it('forces the JSON-output tool on older models and for json_object', () => {
    const forced = body({ response_format: jsonSchema }, 'claude-opus-4-1-20250805');
    expect(forced.output_config).toBeUndefined();
    expect(forced.tools).toEqual([
      { name: 'respond_with_json', description: expect.stringContaining('reply'), input_schema: schema },
    ]);
    expect(forced.tool_choice).toEqual({ type: 'tool', name: 'respond_with_json' });
    const object = body({ response_format: { type: 'json_object' } }, 'claude-sonnet-4-5');
    expect(object.tools).toEqual([
      expect.objectContaining({ name: 'respond_with_json', input_schema: { type: 'object' } }),
    ]);
    expect(body({ response_format: { type: 'text' } })).not.toHaveProperty('tools');
  });

  it('refuses the forced-tool route combined with tools, web search or thinking', () => {
    expect(
      refusal({ response_format: jsonSchema, tools: [weatherTool] }, 'claude-3-5-haiku-20241022').param,
    ).toBe('response_format');
    expect(refusal({ response_format: { type: 'json_object' }, web_search: true }).param).toBe(
      'response_format',
    );
    expect(
      refusal({ response_format: jsonSchema, reasoning_effort: 'low' }, 'claude-sonnet-4-20250514').param,
    ).toBe('response_format');
    const arraySchema: ChatRequest['response_format'] = {
      type: 'json_schema',
      json_schema: { name: 'list', schema: { type: 'array' } },
    };
    expect(refusal({ response_format: arraySchema }, 'claude-3-7-sonnet-20250219').param).toBe(
      'response_format.json_schema.schema',
    );
  });
});
