/**
 * The native simulator answers each native API in its provider's wire format, with usage that the
 * gateway's own usage readers (the ones that bill real providers) read back exactly.
 */
import { describe, expect, it } from 'vitest';
import { mp3OfSeconds } from '../../../../shared/src/file-formats/builders/mp3.ts';
import {
  AnthropicUsageAccumulator,
  anthropicResponseUsage,
} from '../../../../shared/src/native/anthropic/usage.ts';
import { audioMeterFor } from '../../../../shared/src/native/elevenlabs/audio-duration.ts';
import { transcriptionUsage } from '../../../../shared/src/native/elevenlabs/usage.ts';
import { GeminiUsageAccumulator, generateContentUsage } from '../../../../shared/src/native/google/usage.ts';
import { ResponsesUsageAccumulator, responsesUsage } from '../../../../shared/src/native/openai/usage.ts';
import {
  SIMULATOR_BASE_URL,
  simulateNative,
} from '../../../../shared/src/native/simulator/native-simulator.ts';
import type { UsageAccumulator } from '../../../../shared/src/native/stream/usage-accumulator.ts';
import type { UpstreamResponse } from '../../../../shared/src/upstream/upstream-client.ts';

const QUESTION = 'What is the capital of France?';

function send(path: string, body: unknown, headers: Record<string, string> = {}) {
  const bytes = body instanceof Uint8Array ? body : Buffer.from(JSON.stringify(body));
  return simulateNative({
    url: `${SIMULATOR_BASE_URL}${path}`,
    headers: { 'content-type': 'application/json', ...headers },
    body: bytes,
  });
}

async function chunksOf(response: UpstreamResponse): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  return chunks;
}

async function streamUsage(response: UpstreamResponse, accumulator: UsageAccumulator) {
  const chunks = await chunksOf(response);
  expect(chunks.length).toBeGreaterThanOrEqual(3);
  for (const chunk of chunks) accumulator.push(chunk);
  return { text: Buffer.concat(chunks).toString('utf8'), ...accumulator.finish() };
}

describe('Anthropic Messages', () => {
  const body = {
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    messages: [{ role: 'user', content: QUESTION }],
  };

  it('a whole message, its usage by the demo token rule', async () => {
    const answer = await send('/v1/messages', body);
    expect(answer.status).toBe(200);
    const message = (await answer.body.json()) as Record<string, unknown>;
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: `Demo answer to: ${QUESTION}` }],
      stop_reason: 'end_turn',
    });
    expect(anthropicResponseUsage(message)).toMatchObject({
      inputTokens: Math.ceil(QUESTION.length / 4),
      outputTokens: Math.ceil(`Demo answer to: ${QUESTION}`.length / 4),
    });
  });

  it('a stream of Anthropic events, complete, with the same usage; count_tokens', async () => {
    const whole = anthropicResponseUsage(await (await send('/v1/messages', body)).body.json());
    const streamed = await streamUsage(
      await send('/v1/messages', { ...body, stream: true }),
      new AnthropicUsageAccumulator(),
    );
    expect(streamed.complete).toBe(true);
    expect(streamed.usage).toEqual(whole);
    expect(streamed.text).toMatch(/^event: message_start\n/);
    expect(streamed.text).toContain('event: message_stop');
    const count = await (await send('/v1/messages/count_tokens', body)).body.json();
    expect(count).toEqual({ input_tokens: Math.ceil(QUESTION.length / 4) });
  });

  it('the output bound cuts the answer (stop_reason max_tokens); no messages: 400 in Anthropic’s format', async () => {
    const cut = (await (await send('/v1/messages', { ...body, max_tokens: 2 })).body.json()) as {
      stop_reason: string;
      usage: { output_tokens: number };
    };
    expect(cut).toMatchObject({ stop_reason: 'max_tokens', usage: { output_tokens: 2 } });
    const refused = await send('/v1/messages', { model: 'x', max_tokens: 5 });
    expect(refused.status).toBe(400);
    expect(await refused.body.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
  });
});

describe('Gemini', () => {
  const body = { contents: [{ role: 'user', parts: [{ text: QUESTION }] }] };

  it('generateContent and both stream framings report the same usage', async () => {
    const whole = generateContentUsage(
      await (await send('/v1beta/models/gemini-2.5-flash:generateContent', body)).body.json(),
    );
    expect(whole).toMatchObject({ inputTokens: Math.ceil(QUESTION.length / 4) });
    for (const sse of [true, false]) {
      const path = `/v1beta/models/gemini-2.5-flash:streamGenerateContent${sse ? '?alt=sse' : ''}`;
      const streamed = await streamUsage(await send(path, body), new GeminiUsageAccumulator(sse));
      expect(streamed.complete).toBe(true);
      expect(streamed.usage).toEqual(whole);
    }
  });

  it('countTokens, embedContent and batchEmbedContents', async () => {
    const count = await (await send('/v1beta/models/gemini-2.5-flash:countTokens', body)).body.json();
    expect(count).toEqual({ totalTokens: Math.ceil(QUESTION.length / 4) });
    const one = (await (
      await send('/v1beta/models/gemini-embedding-001:embedContent', {
        content: { parts: [{ text: 'hi' }] },
        outputDimensionality: 8,
      })
    ).body.json()) as { embedding: { values: number[] } };
    expect(one.embedding.values).toHaveLength(8);
    const batch = (await (
      await send('/v1beta/models/gemini-embedding-001:batchEmbedContents', {
        requests: [{ content: { parts: [{ text: 'a' }] } }, { content: { parts: [{ text: 'b' }] } }],
      })
    ).body.json()) as { embeddings: { values: number[] }[] };
    expect(batch.embeddings).toHaveLength(2);
    const refused = await send('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [] });
    expect(refused.status).toBe(400);
    expect(await refused.body.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });
});

describe('OpenAI Responses', () => {
  const body = { model: 'gpt-5', input: QUESTION };

  it('a whole response and a stream ending in response.completed, with the same usage', async () => {
    const response = await (await send('/responses', body)).body.json();
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'output_text', text: `Demo answer to: ${QUESTION}` }] }],
    });
    const whole = responsesUsage(response);
    expect(whole).toMatchObject({ inputTokens: Math.ceil(QUESTION.length / 4) });
    const streamed = await streamUsage(
      await send('/responses', { ...body, stream: true }),
      new ResponsesUsageAccumulator(),
    );
    expect(streamed.complete).toBe(true);
    expect(streamed.usage).toEqual(whole);
    expect(streamed.text).toContain('"sequence_number":0');
  });
});

describe('OpenAI Chat Completions and Embeddings', () => {
  it('a chat.completion, and a stream ending with the usage chunk and [DONE]', async () => {
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: QUESTION }] };
    const whole = (await (await send('/chat/completions', body)).body.json()) as Record<string, unknown>;
    expect(whole).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { content: `Demo answer to: ${QUESTION}` } }],
      usage: { prompt_tokens: Math.ceil(QUESTION.length / 4) },
    });
    const streamed = Buffer.concat(
      await chunksOf(await send('/chat/completions', { ...body, stream: true })),
    );
    const events = streamed.toString('utf8').trim().split('\n\n');
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(events.at(-2)?.slice('data: '.length) ?? '')).toMatchObject({
      choices: [],
      usage: whole.usage,
    });
    const refused = await send('/chat/completions', { model: 'gpt-4o-mini', messages: [] });
    expect(refused.status).toBe(400);
    expect(await refused.body.json()).toMatchObject({
      error: { type: 'invalid_request_error', param: 'messages' },
    });
  });

  it('embeddings in floats, or base64 of little-endian float32 as the OpenAI SDK asks', async () => {
    const floats = (await (await send('/embeddings', { model: 'e', input: ['a', 'b'] })).body.json()) as {
      data: { embedding: number[] }[];
    };
    expect(floats.data).toHaveLength(2);
    const encoded = (await (
      await send('/embeddings', { model: 'e', input: ['a', 'b'], encoding_format: 'base64' })
    ).body.json()) as { data: { embedding: string }[] };
    const decoded = new Float32Array(
      Uint8Array.from(Buffer.from(encoded.data[0]?.embedding ?? '', 'base64')).buffer,
    );
    expect(decoded[0]).toBeCloseTo(floats.data[0]?.embedding[0] ?? Number.NaN, 5);
    expect((await send('/embeddings', { model: 'e', input: [] })).status).toBe(400);
  });
});

describe('ElevenLabs', () => {
  async function seconds(response: UpstreamResponse, format?: string): Promise<number> {
    const meter = audioMeterFor(format);
    for (const chunk of await chunksOf(response)) meter?.push(chunk);
    return meter?.seconds() ?? Number.NaN;
  }

  it('speech lasts characters / 15 seconds, sound its duration_seconds (else 5 s), in the format asked', async () => {
    const speech = await send('/v1/text-to-speech/voice1', { text: 'x'.repeat(45) });
    expect(speech.headers['content-type']).toBe('audio/mpeg');
    expect(await seconds(speech)).toBeCloseTo(3, 1);
    const sound = await send('/v1/sound-generation?output_format=pcm_16000', {
      text: 'rain',
      duration_seconds: 2,
    });
    expect(await seconds(sound, 'pcm_16000')).toBe(2);
    const unset = await send('/v1/sound-generation', { text: 'rain' });
    expect(await seconds(unset)).toBeCloseTo(5, 1);
    const opus = await send('/v1/sound-generation?output_format=opus_48000_64', { text: 'rain' });
    expect(opus.status).toBe(400);
    expect(await opus.body.json()).toMatchObject({ detail: { status: 'invalid_output_format' } });
  });

  it('speech to text: the demo transcription of the file, its measured duration reported', async () => {
    const boundary = 'simulatorboundary';
    const audio = mp3OfSeconds(2);
    const form = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="model_id"\r\n\r\nscribe_v1\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
      ),
      audio,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const answer = await send('/v1/speech-to-text', form, {
      'content-type': `multipart/form-data; boundary=${boundary}`,
    });
    const transcript = await answer.body.json();
    expect(transcript).toMatchObject({
      language_code: 'en',
      text: expect.stringContaining('Demo transcription'),
    });
    expect(transcriptionUsage(undefined, transcript)?.seconds).toBeCloseTo(2, 1);
    const empty = await send('/v1/speech-to-text', Buffer.from(`--${boundary}--\r\n`), {
      'content-type': `multipart/form-data; boundary=${boundary}`,
    });
    expect(empty.status).toBe(400);
  });
});

describe('requests the simulator cannot answer', () => {
  it('are refused in the provider’s own error format, never thrown', async () => {
    const notJson = await simulateNative({
      url: `${SIMULATOR_BASE_URL}/v1/messages`,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"model":'),
    });
    expect(notJson.status).toBe(400);
    const unknown = await send('/v1/files', { purpose: 'x' });
    expect(unknown.status).toBe(404);
    const noInput = await send('/responses', { model: 'gpt-5' });
    expect(noInput.status).toBe(400);
    expect(await noInput.body.json()).toMatchObject({ error: { param: 'input' } });
    const tooLong = await send('/v1/sound-generation', { text: 'rain', duration_seconds: 60 });
    expect(tooLong.status).toBe(400);
    expect(await tooLong.body.json()).toMatchObject({ detail: { status: 'invalid_request' } });
    const noText = await send('/v1/text-to-speech/voice1', { text: ' ' });
    expect(noText.status).toBe(400);
    const noContent = await send('/v1beta/models/gemini-embedding-001:embedContent', { model: 'x' });
    expect(noContent.status).toBe(400);
    expect(await noContent.body.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
  });
});
