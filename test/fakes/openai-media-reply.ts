/**
 * What a fake OpenAI media route answers: JSON (success or OpenAI's error body) or bytes. The
 * server (openai-media-upstream.ts) writes it, applying the behaviour script.
 */
import { openAIError } from './openai-upstream.ts';

export type FakeReply =
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'bytes'; status: number; contentType: string; body: Buffer };

export function jsonReply(body: unknown, status = 200): FakeReply {
  return { kind: 'json', status, body };
}

export function bytesReply(body: Buffer, contentType: string): FakeReply {
  return { kind: 'bytes', status: 200, contentType, body };
}

/** OpenAI's `{error: {message, type, param, code}}` with an `invalid_request_error` type unless told. */
export function errorReply(
  status: number,
  message: string,
  options: { param?: string; code?: string; type?: string } = {},
): FakeReply {
  const body = openAIError(
    message,
    options.type ?? 'invalid_request_error',
    options.code ?? null,
    options.param ?? null,
  );
  return jsonReply(body, status);
}

/** 404 `model_not_found` for models whose id starts with `missing` (the chat fake's trigger). */
export function missingModel(model: string): FakeReply | undefined {
  if (!model.startsWith('missing')) return undefined;
  return errorReply(404, `The model \`${model}\` does not exist or you do not have access to it.`, {
    code: 'model_not_found',
  });
}

export function invalidValue(param: string, value: unknown, supported: readonly string[]): FakeReply {
  const message = `Invalid value: '${String(value)}'. Supported values are: ${supported.map((s) => `'${s}'`).join(', ')}.`;
  return errorReply(400, message, { param, code: 'invalid_value' });
}

export function unknownParameter(param: string): FakeReply {
  return errorReply(400, `Unknown parameter: '${param}'.`, { param, code: 'unknown_parameter' });
}
