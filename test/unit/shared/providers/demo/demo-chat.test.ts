import { describe, expect, it } from 'vitest';
import type { ChatChunk, ChatRequest, Tool } from '../../../../../shared/src/providers/chat-types.ts';
import { demoChat, demoProvider } from '../../../../../shared/src/providers/demo/index.ts';

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'demo/chat',
  messages: [
    { role: 'system', content: 'You are demo.' },
    { role: 'user', content: text },
  ],
  ...extra,
});

const weather: Tool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        unit: { type: 'string', enum: ['c', 'f'] },
        detailed: { type: 'boolean' },
        hours: { type: 'array', items: { type: 'number' } },
        where: { type: 'object', properties: { lat: { type: 'number' } }, required: ['lat'] },
        note: { type: ['null', 'string'] },
        optional: { type: 'string' },
      },
      required: ['city', 'days', 'unit', 'detailed', 'hours', 'where', 'note'],
    },
  },
};

/** Concatenates a stream back into text, reasoning and tool-call arguments per index. */
function collect(chunks: ChatChunk[]) {
  let content = '';
  let reasoning = '';
  const args: string[] = [];
  for (const chunk of chunks) {
    const delta = chunk.choices[0]?.delta;
    content += delta?.content ?? '';
    reasoning += delta?.reasoning_content ?? '';
    for (const call of delta?.tool_calls ?? [])
      args[call.index] = (args[call.index] ?? '') + (call.function?.arguments ?? '');
  }
  return { content, reasoning, args };
}

describe('demo chat (simulator)', () => {
  it('answers deterministically from the last user message, with the documented token rule', () => {
    const request = ask('What is the capital of France?');
    const result = demoChat.complete(request);
    expect(result).toEqual(demoChat.complete(request));
    expect(result.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Demo answer to: What is the capital of France?' },
        finish_reason: 'stop',
        logprobs: null,
      },
    ]);
    // input: ceil((13 + 30) / 4) = 11; output: ceil(46 / 4) = 12
    expect(result.usage).toEqual({
      inputTokens: 11,
      cachedInputTokens: 0,
      outputTokens: 12,
      reasoningTokens: 0,
    });
  });

  it('quotes at most 200 characters and counts text parts', () => {
    const long = 'x'.repeat(500);
    const result = demoChat.complete({
      model: 'demo/chat',
      messages: [{ role: 'user', content: [{ type: 'text', text: long }] }],
    });
    expect(result.choices[0]?.message.content).toBe(`Demo answer to: ${'x'.repeat(200)}`);
    expect(result.usage.inputTokens).toBe(125);
  });

  it('calls a tool mentioned by name, with placeholder values for its required parameters', () => {
    const result = demoChat.complete(ask('Please use get_weather for Paris', { tools: [weather] }));
    const choice = result.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls?.[0]?.function.name).toBe('get_weather');
    expect(JSON.parse(choice?.message.tool_calls?.[0]?.function.arguments ?? '')).toEqual({
      city: 'example',
      days: 0,
      unit: 'c',
      detailed: false,
      hours: [],
      where: { lat: 0 },
      note: 'example',
    });
  });

  it('honours tool_choice: none, required and a named function; answers after a tool result', () => {
    const plain: Tool = { type: 'function', function: { name: 'lookup' } };
    expect(
      demoChat.complete(ask('use get_weather', { tools: [weather], tool_choice: 'none' })).choices[0]
        ?.finish_reason,
    ).toBe('stop');
    const required = demoChat.complete(ask('hello', { tools: [plain, weather], tool_choice: 'required' }));
    expect(required.choices[0]?.message.tool_calls?.[0]?.function).toEqual({
      name: 'lookup',
      arguments: '{}',
    });
    const named = demoChat.complete(
      ask('hello', {
        tools: [plain, weather],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      }),
    );
    expect(named.choices[0]?.message.tool_calls?.[0]?.function.name).toBe('get_weather');
    const afterTool = demoChat.complete({
      model: 'demo/chat',
      tools: [weather],
      messages: [
        { role: 'user', content: 'use get_weather' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_demo_0', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_demo_0', content: '21 degrees' },
      ],
    });
    expect(afterTool.choices[0]?.message.content).toBe('Demo answer using the tool result: 21 degrees');
  });

  it('answers json_schema with the required keys and json_object with an answer key', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer' } },
      required: ['name', 'age'],
    };
    const structured = demoChat.complete(
      ask('Who?', { response_format: { type: 'json_schema', json_schema: { name: 'p', schema } } }),
    );
    expect(JSON.parse(structured.choices[0]?.message.content ?? '')).toEqual({ name: 'example', age: 0 });
    const object = demoChat.complete(ask('Who?', { response_format: { type: 'json_object' } }));
    expect(JSON.parse(object.choices[0]?.message.content ?? '')).toEqual({ answer: 'Demo answer to: Who?' });
  });

  it('reasons when reasoning_effort is set and not none, counting reasoning as output', () => {
    const result = demoChat.complete(ask('2+2?', { reasoning_effort: 'high' }));
    const reasoning = result.choices[0]?.message.reasoning_content ?? '';
    expect(reasoning).toBe('Simulated reasoning (high effort): the question has 4 characters.');
    expect(result.usage.reasoningTokens).toBe(Math.ceil(reasoning.length / 4));
    expect(result.usage.outputTokens).toBe(
      Math.ceil('Demo answer to: 2+2?'.length / 4) + result.usage.reasoningTokens,
    );
    expect(
      demoChat.complete(ask('2+2?', { reasoning_effort: 'none' })).choices[0]?.message.reasoning_content,
    ).toBeUndefined();
  });

  it('applies stop sequences, the output cap and n', () => {
    expect(demoChat.complete(ask('alpha beta', { stop: ' beta' })).choices[0]?.message.content).toBe(
      'Demo answer to: alpha',
    );
    const capped = demoChat.complete(ask('alpha beta', { max_tokens: 2 }));
    expect(capped.choices[0]).toMatchObject({ message: { content: 'Demo ans' }, finish_reason: 'length' });
    const two = demoChat.complete(ask('hi', { n: 2 }));
    expect(two.choices.map((choice) => choice.index)).toEqual([0, 1]);
    expect(two.usage.outputTokens).toBe(2 * demoChat.complete(ask('hi')).usage.outputTokens);
  });

  it('streams role first, several content pieces, then the finish chunk, with the same usage', () => {
    const request = ask('Tell me a short story about a cat');
    const { chunks, usage } = demoChat.stream(request);
    expect(chunks[0]).toEqual({ choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] });
    expect(chunks.at(-1)).toEqual({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    expect(collect(chunks).content).toBe(demoChat.complete(request).choices[0]?.message.content);
    expect(usage).toEqual(demoChat.complete(request).usage);
  });

  it('streams reasoning and tool-call deltas with a stable index', () => {
    const { chunks } = demoProvider.chat.stream(
      ask('get_weather please', { tools: [weather], reasoning_effort: 'low' }),
    );
    const collected = collect(chunks);
    expect(collected.reasoning).toBe('Simulated reasoning (low effort): the question has 18 characters.');
    const first = chunks.find((chunk) => chunk.choices[0]?.delta.tool_calls)?.choices[0]?.delta
      .tool_calls?.[0];
    expect(first).toEqual({
      index: 0,
      id: 'call_demo_0',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    expect(JSON.parse(collected.args[0] ?? '')).toMatchObject({ city: 'example' });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });
});
