import { describe, expect, it } from 'vitest';
import type { ChatRequest, UpstreamTarget } from '../../../../../shared/src/providers/chat-types.ts';
import {
  toChatUpstreamRequest,
  toGenerateContentBody,
} from '../../../../../shared/src/providers/google/chat-request.ts';
import { UnsupportedFeatureError } from '../../../../../shared/src/providers/google/errors.ts';
import { imageMimeTypeOfUrl } from '../../../../../shared/src/providers/google/request-parts.ts';

const FLASH = 'gemini-2.5-flash';
const GEMINI3 = 'gemini-3-flash-preview';

function body(request: Partial<ChatRequest>, model = FLASH) {
  return toGenerateContentBody({ model, messages: [{ role: 'user', content: 'Hi' }], ...request }, model);
}

describe('google chat request: URL and auth', () => {
  const target: UpstreamTarget = {
    baseUrl: 'https://generativelanguage.googleapis.com',
    apiKey: 'AIza-test',
    nativeModel: 'models/gemini-2.5-flash',
  };
  const request: ChatRequest = {
    model: 'google/gemini-2.5-flash',
    messages: [{ role: 'user', content: 'Hi' }],
  };

  it('calls generateContent with the key in x-goog-api-key', () => {
    const upstream = toChatUpstreamRequest(request, target, { stream: false });
    expect(upstream.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    );
    expect(upstream.headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test' });
    expect(JSON.parse(upstream.body)).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
  });

  it('streams through streamGenerateContent with alt=sse', () => {
    const upstream = toChatUpstreamRequest(request, target, { stream: true });
    expect(upstream.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
  });
});

describe('google chat request: messages', () => {
  it('joins system and developer messages into systemInstruction and maps roles', () => {
    const result = body({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Hello', name: 'ann' },
        { role: 'assistant', content: 'Bonjour' },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(result.systemInstruction).toEqual({ parts: [{ text: 'Be brief.\n\nAnswer in French.' }] });
    expect(result.contents).toEqual([
      { role: 'user', parts: [{ text: 'Hello' }] },
      { role: 'model', parts: [{ text: 'Bonjour' }] },
      { role: 'user', parts: [{ text: 'Again' }] },
    ]);
  });

  it('merges consecutive turns of the same role', () => {
    const result = body({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: 'two' },
        { role: 'assistant', content: null },
        { role: 'assistant', content: 'three' },
      ],
    });
    expect(result.contents).toEqual([
      { role: 'user', parts: [{ text: 'one' }, { text: 'two' }] },
      { role: 'model', parts: [{ text: 'three' }] },
    ]);
  });

  it('maps text, data-URL images, https images and PDF files to parts', () => {
    const result = body({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
            { type: 'image_url', image_url: 'https://example.com/cat.webp?size=2' },
            { type: 'image_url', image_url: { url: 'https://example.com/photo' } },
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
          ],
        },
      ],
    });
    expect(result.contents[0]?.parts).toEqual([
      { text: 'What is this?' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { fileUri: 'https://example.com/cat.webp?size=2', mimeType: 'image/webp' } },
      { fileData: { fileUri: 'https://example.com/photo', mimeType: 'image/jpeg' } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
    ]);
  });

  it('guesses image MIME types from the extension, else JPEG', () => {
    expect(imageMimeTypeOfUrl('https://x.test/a.PNG')).toBe('image/png');
    expect(imageMimeTypeOfUrl('https://x.test/a.jpeg#frag')).toBe('image/jpeg');
    expect(imageMimeTypeOfUrl('https://x.test/a.gif')).toBe('image/gif');
    expect(imageMimeTypeOfUrl('https://x.test/a.svg')).toBe('image/jpeg');
  });

  it('rejects images that are neither https nor base64 data URLs, and files without data', () => {
    const image = (url: string) =>
      body({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: url }] }] });
    expect(() => image('http://example.com/a.png')).toThrow(UnsupportedFeatureError);
    expect(() => image('data:image/png,rawbytes')).toThrow(UnsupportedFeatureError);
    expect(() =>
      body({ messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'x.pdf' } }] }] }),
    ).toThrow(UnsupportedFeatureError);
  });

  it('rejects a conversation made of system messages only', () => {
    expect(() => body({ messages: [{ role: 'system', content: 'x' }] })).toThrow(UnsupportedFeatureError);
  });
});

describe('google chat request: tool round trip', () => {
  const history: ChatRequest['messages'] = [
    { role: 'user', content: 'Weather in Paris and Rome?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_0_0__thought__c2ln',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        },
        { id: 'call_0_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_0_0__thought__c2ln', content: '{"temp":21}' },
    { role: 'tool', tool_call_id: 'call_0_1', content: 'sunny' },
  ];

  it('sends functionCall parts (with the signature from the id) and functionResponse parts in one user turn', () => {
    expect(body({ messages: history }).contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' },
          { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { temp: 21 } } },
          { functionResponse: { name: 'get_weather', response: { content: 'sunny' } } },
        ],
      },
    ]);
  });

  it('adds the documented placeholder signature for Gemini 3 when the history has none', () => {
    const foreign: ChatRequest['messages'] = [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'rain' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'sun' },
    ];
    const parts = body({ messages: foreign }, GEMINI3).contents[1]?.parts;
    expect(parts?.[0]?.thoughtSignature).toBe('skip_thought_signature_validator');
    expect(parts?.[1]).toEqual({ functionCall: { name: 'get_weather', args: {} } });
    expect(body({ messages: foreign }, FLASH).contents[1]?.parts[0]?.thoughtSignature).toBeUndefined();
  });

  it('rejects a tool message that answers no known call, and arguments that are not an object', () => {
    expect(() => body({ messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] })).toThrow(
      UnsupportedFeatureError,
    );
    const bad: ChatRequest['messages'] = [
      { role: 'user', content: 'x' },
      {
        role: 'assistant',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '[1]' } }],
      },
    ];
    expect(() => body({ messages: bad })).toThrow(UnsupportedFeatureError);
  });

  it('declares tools with their JSON Schema and maps tool_choice', () => {
    const parameters = {
      type: 'object',
      properties: { city: { type: 'string' } },
      additionalProperties: false,
    };
    const tools: ChatRequest['tools'] = [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather', parameters, strict: true },
      },
      { type: 'function', function: { name: 'ping' } },
    ];
    const result = body({ tools, tool_choice: 'required', parallel_tool_calls: false });
    expect(result.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Weather', parametersJsonSchema: parameters },
          { name: 'ping' },
        ],
      },
    ]);
    expect(result.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(body({ tools, tool_choice: 'auto' }).toolConfig).toEqual({
      functionCallingConfig: { mode: 'AUTO' },
    });
    expect(body({ tools, tool_choice: 'none' }).toolConfig).toEqual({
      functionCallingConfig: { mode: 'NONE' },
    });
    expect(body({ tools, tool_choice: { type: 'function', function: { name: 'ping' } } }).toolConfig).toEqual(
      {
        functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['ping'] },
      },
    );
    expect(body({ tools }).toolConfig).toBeUndefined();
    expect(() => body({ tool_choice: 'required' })).toThrow(UnsupportedFeatureError);
  });

  it('adds Google Search grounding for web_search', () => {
    expect(body({ web_search: true, web_search_options: { search_context_size: 'low' } }).tools).toEqual([
      { google_search: {} },
    ]);
  });
});

describe('google chat request: generationConfig', () => {
  it('maps sampling, limits, stop, seed, penalties and n', () => {
    const result = body({
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 100,
      stop: ['END', 'STOP'],
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      n: 2,
      user: 'u-1',
      stream_options: { include_usage: true },
    });
    expect(result.generationConfig).toEqual({
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 100,
      stopSequences: ['END', 'STOP'],
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      candidateCount: 2,
    });
    expect(body({}).generationConfig).toBeUndefined();
  });

  it('prefers max_completion_tokens and wraps a single stop string', () => {
    expect(body({ max_tokens: 10, max_completion_tokens: 20, stop: 'X' }).generationConfig).toEqual({
      maxOutputTokens: 20,
      stopSequences: ['X'],
    });
  });

  it('rejects more than 5 stop sequences, logprobs and logit_bias', () => {
    expect(() => body({ stop: ['a', 'b', 'c', 'd', 'e', 'f'] })).toThrow(/at most 5/);
    expect(() => body({ logprobs: true })).toThrow(UnsupportedFeatureError);
    expect(() => body({ top_logprobs: 2 })).toThrow(UnsupportedFeatureError);
    expect(() => body({ logit_bias: { '42': 10 } })).toThrow(UnsupportedFeatureError);
    expect(body({ logprobs: false, logit_bias: {} }).generationConfig).toBeUndefined();
  });

  it('maps response_format to responseMimeType and responseJsonSchema', () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
    expect(body({ response_format: { type: 'json_object' } }).generationConfig).toEqual({
      responseMimeType: 'application/json',
    });
    const withDialect = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema };
    expect(
      body({
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'x', strict: true, schema: withDialect },
        },
      }).generationConfig,
    ).toEqual({ responseMimeType: 'application/json', responseJsonSchema: schema });
    expect(
      body({ response_format: { type: 'json_schema', json_schema: { name: 'x' } } }).generationConfig,
    ).toEqual({ responseMimeType: 'application/json' });
    expect(body({ response_format: { type: 'text' } }).generationConfig).toBeUndefined();
  });

  it('maps reasoning_effort to a thinking budget on Gemini 2.5', () => {
    const thinking = (effort: ChatRequest['reasoning_effort']) =>
      body({ reasoning_effort: effort }).generationConfig?.thinkingConfig;
    expect(thinking('none')).toEqual({ thinkingBudget: 0 });
    expect(thinking('minimal')).toEqual({ thinkingBudget: 1024, includeThoughts: true });
    expect(thinking('low')).toEqual({ thinkingBudget: 1024, includeThoughts: true });
    expect(thinking('medium')).toEqual({ thinkingBudget: 8192, includeThoughts: true });
    expect(thinking('high')).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(thinking('max')).toEqual({ thinkingBudget: 24576, includeThoughts: true });
  });

  it('maps reasoning_effort to a thinking level on Gemini 3 and later', () => {
    const thinking = (effort: ChatRequest['reasoning_effort'], model = GEMINI3) =>
      body({ reasoning_effort: effort }, model).generationConfig?.thinkingConfig;
    expect(thinking('none')).toEqual({ thinkingLevel: 'minimal' });
    expect(thinking('minimal')).toEqual({ thinkingLevel: 'minimal', includeThoughts: true });
    expect(thinking('medium')).toEqual({ thinkingLevel: 'medium', includeThoughts: true });
    expect(thinking('xhigh', 'gemini-3.1-pro-preview')).toEqual({
      thinkingLevel: 'high',
      includeThoughts: true,
    });
  });
});
