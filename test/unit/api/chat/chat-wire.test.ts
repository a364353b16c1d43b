import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatIdentity, chunkLineWriter, chunkObject, sseData } from '../../../../api/src/chat/chat-wire.ts';
import type { ChatChunk } from '../../../../shared/src/providers/chat-types.ts';

const text = fc.string({ unit: 'binary' });
const choice = fc.record(
  {
    index: fc.nat(8),
    delta: fc.record(
      {
        role: fc.constant('assistant' as const),
        content: text,
        reasoning_content: text,
        tool_calls: fc.array(
          fc.record(
            {
              index: fc.nat(4),
              id: text,
              type: fc.constant('function' as const),
              function: fc.record({ name: text, arguments: text }, { requiredKeys: [] }),
            },
            { requiredKeys: ['index'] },
          ),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    ),
    finish_reason: fc.constantFrom(null, 'stop' as const, 'length' as const, 'tool_calls' as const),
  },
  { requiredKeys: ['index', 'delta', 'finish_reason'] },
);
const chunk: fc.Arbitrary<ChatChunk> = fc.record(
  {
    choices: fc.array(choice, { maxLength: 3 }),
    citations: fc.array(fc.record({ title: fc.option(text), url: fc.webUrl() }), { maxLength: 2 }),
  },
  { requiredKeys: ['choices'] },
);

describe('chunkLineWriter', () => {
  it('writes the same line as serializing the whole chunk object, citations or none', () => {
    fc.assert(
      fc.property(text, fc.string(), fc.date({ noInvalidDate: true }), chunk, (requestId, model, now, c) => {
        const identity = chatIdentity(`req_${requestId}`, model, now);
        expect(chunkLineWriter(identity)(c)).toBe(sseData(chunkObject(identity, c)));
      }),
    );
  });

  it('leaves out an empty citations list, as the chunk object does', () => {
    const identity = chatIdentity('req_abc', 'openai/gpt-4o', new Date(1_700_000_000_000));
    const line = chunkLineWriter(identity)({ choices: [], citations: [] });
    expect(line).toBe(
      'data: {"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1700000000,"model":"openai/gpt-4o","choices":[]}\n\n',
    );
  });
});
