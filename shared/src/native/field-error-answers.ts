/**
 * A `NativeFieldError` in each provider's own error format: the body the provider sends when it
 * refuses a field's value, so that its SDKs raise and read it as they read the provider's own.
 * Formats per the providers' references: OpenAI `{error: {message, type, param, code}}`
 * (https://platform.openai.com/docs/guides/error-codes), Anthropic `{type: 'error', error: {type,
 * message}, request_id}` (https://docs.anthropic.com/en/api/errors), Google `{error: {code,
 * message, status, details}}` with a `google.rpc.BadRequest` naming the field
 * (https://ai.google.dev/api/rest/v1beta/Status, https://google.aip.dev/193), ElevenLabs
 * `{detail: {status, message}}` (its 400 answers).
 */
import type { NativeFieldError } from './field-bounds.ts';

/** The body of a field error in one provider's format; `requestId` is the gateway's. */
export type FieldErrorBody = (error: NativeFieldError, requestId: string) => unknown;

export const openaiFieldError: FieldErrorBody = (error) => ({
  error: {
    message: error.message,
    type: 'invalid_request_error',
    param: error.field,
    code: error.problem,
  },
});

export const anthropicFieldError: FieldErrorBody = (error, requestId) => ({
  type: 'error',
  error: { type: 'invalid_request_error', message: error.message },
  request_id: requestId,
});

export const googleFieldError: FieldErrorBody = (error) => ({
  error: {
    code: 400,
    message: error.message,
    status: 'INVALID_ARGUMENT',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [{ field: error.field, description: error.message }],
      },
    ],
  },
});

export const elevenlabsFieldError: FieldErrorBody = (error) => ({
  detail: {
    status: error.problem === 'string_above_max_length' ? 'max_character_limit_exceeded' : 'invalid_request',
    message: error.message,
  },
});
