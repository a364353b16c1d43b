import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../../../shared/src/providers/anthropic/index.ts';
import type { ChatRequest } from '../../../../../shared/src/providers/chat-types.ts';
import { body, build, refusal, target } from './request-helpers.ts';

describe('Anthropic chat request: envelope', () => {
  it('posts to /v1/messages with x-api-key and anthropic-version', () => {
    const request = build({}, 'claude-sonnet-4-5', true);
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request.headers).toMatchObject({
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    });
    expect(request.headers.authorization).toBeUndefined();
    expect(JSON.parse(request.body)).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('joins a base URL with a trailing slash or a /v1 suffix once', () => {
    // biome-ignore lint/style/noNonNullAssertion: the Anthropic adapter always has chat.
    const chat = anthropicAdapter.chat!;
    const hi: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };
    expect(chat.request(hi, { ...target, baseUrl: 'http://fake:1/' }, { stream: false }).url).toBe(
      'http://fake:1/v1/messages',
    );
    expect(chat.request(hi, { ...target, baseUrl: 'http://fake:1/v1' }, { stream: false }).url).toBe(
      'http://fake:1/v1/messages',
    );
  });
});

describe('Anthropic chat request: messages', () => {
  it('moves system and developer messages, in order, to top-level system text blocks', () => {
    const mapped = body({
      messages: [
        { role: 'system', content: 'You are Claude Sonnet.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Hi' },
        { role: 'system', content: 'Be brief.' },
      ],
    });
    expect(mapped.system).toEqual([
      { type: 'text', text: 'You are Claude Sonnet.' },
      { type: 'text', text: 'Answer in French.' },
      { type: 'text', text: 'Be brief.' },
    ]);
    expect(mapped.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  });

  it('merges consecutive same-role messages so turns alternate, dropping empty text', () => {
    const mapped = body({
      messages: [
        { role: 'user', content: 'One' },
        { role: 'user', content: [{ type: 'text', text: 'Two' }] },
        { role: 'assistant', content: '' },
        { role: 'assistant', content: 'Three' },
        { role: 'user', content: 'Four' },
      ],
    });
    expect(mapped.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'One' },
          { type: 'text', text: 'Two' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Three' }] },
      { role: 'user', content: [{ type: 'text', text: 'Four' }] },
    ]);
  });

  it('maps https images to url sources, data URLs to base64 sources and PDF files to documents', () => {
    const mapped = body({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'high' } },
            { type: 'image_url', image_url: 'data:image/jpg;base64,/9j/4AAQ' },
            {
              type: 'file',
              file: { filename: 'report.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' },
            },
          ],
        },
      ],
    });
    expect(mapped.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' },
            title: 'report.pdf',
          },
        ],
      },
    ]);
  });

  it('refuses images that are neither https nor a supported data URL, and non-PDF files', () => {
    const image = (url: string) => ({
      messages: [{ role: 'user' as const, content: [{ type: 'image_url' as const, image_url: url }] }],
    });
    expect(refusal(image('http://example.com/a.png')).param).toBe('messages[0].content[0].image_url');
    expect(refusal(image('data:image/bmp;base64,Qk0=')).message).toMatch(/jpeg, png, gif or webp/);
    const file = {
      messages: [
        {
          role: 'user' as const,
          content: [{ type: 'file' as const, file: { file_data: 'data:text/plain;base64,aGk=' } }],
        },
      ],
    };
    expect(refusal(file).param).toBe('messages[0].content[0].file');
    const systemImage = {
      messages: [
        {
          role: 'system' as const,
          content: [{ type: 'image_url' as const, image_url: 'https://a.b/c.png' }],
        },
      ],
    };
    expect(refusal(systemImage).param).toBe('messages[0].content[0]');
  });

  it('maps assistant tool calls to tool_use and tool messages to one user turn of tool_results first', () => {
    const mapped = body({
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            {
              id: 'toolu_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '18C' },
        { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '21C' }] },
        { role: 'user', content: 'Thanks' },
      ],
    });
    expect(mapped.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: '21C' }] },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
  });

  it('refuses tool-call arguments that are not a JSON object, and tool messages without an id', () => {
    const call = (args: string) => ({
      messages: [
        { role: 'user' as const, content: 'x' },
        {
          role: 'assistant' as const,
          tool_calls: [{ id: 't', type: 'function' as const, function: { name: 'f', arguments: args } }],
        },
      ],
    });
    expect(refusal(call('{not json')).param).toBe('messages[1].tool_calls[0].function.arguments');
    expect(refusal(call('[1,2]')).message).toMatch(/JSON object/);
    expect(refusal({ messages: [{ role: 'tool', content: 'x' }] }).param).toBe('messages[0].tool_call_id');
  });
});
