import { ApiError } from '../api/client.ts';
import type { I18n, MessageKey } from '../i18n/i18n.tsx';

/** Error codes with a sentence of their own in the catalogues (`error.<code>`). */
const KNOWN_CODES = new Set<string>([
  'invalid_credentials',
  'rate_limit_exceeded',
  'rate_limit_error',
  'key_limit_reached',
  'account_exists',
  'account_not_found',
  'key_not_found',
  'csrf_token_invalid',
  'invalid_token',
  'token_invalid',
  'token_expired',
  'token_used',
  'invitation_invalid',
  'password_too_short',
  'password_invalid',
  'insufficient_quota',
  'spend_limit_reached',
  'model_not_allowed',
  'ip_not_allowed',
  'invalid_api_key',
  'model_not_found',
  'model_required',
  'upstream_error',
  'account_inactive',
  'job_not_found',
  'validation_failed',
  'session_required',
  'video_not_found',
  'channel_has_renders',
  'channel_name_taken',
  'channel_read_only',
  'channel_not_found',
  'channel_secret_key_missing',
]);

export interface ErrorText {
  /** A sentence in the user's language. */
  readonly message: string;
  /** The server's own (English) detail, shown smaller when it adds something (which field is wrong). */
  readonly detail?: string;
  readonly requestId?: string;
}

/** What to tell the user about a failed call, in their language. */
export function describeError(i18n: I18n, error: unknown): ErrorText {
  const { t } = i18n;
  if (!(error instanceof ApiError)) {
    return { message: t('error.unexpected'), detail: error instanceof Error ? error.message : undefined };
  }
  const requestId = error.requestId;
  if (error.status === 0) return { message: t('error.network_error') };
  if (error.code === 'rate_limit_exceeded' && error.retryAfter !== undefined) {
    return {
      message: t('error.rate_limit_exceeded_retry', { seconds: i18n.format.number(error.retryAfter) }),
      requestId,
    };
  }
  if (error.code === 'invalid_credentials' && error.status === 403) {
    return { message: t('error.wrong_current_password'), requestId };
  }
  if (KNOWN_CODES.has(error.code)) {
    const withDetail = error.code === 'validation_failed' || error.code === 'model_not_found';
    return {
      message: t(`error.${error.code}` as MessageKey),
      detail: withDetail ? error.message : undefined,
      requestId,
    };
  }
  if (error.status === 400 || error.status === 409 || error.status === 422) {
    // The server names the field; its sentence is English, so it goes beside ours.
    return { message: t('error.invalid_request'), detail: error.message, requestId };
  }
  if (error.status === 401) return { message: t('error.unauthorized'), requestId };
  if (error.status === 403) return { message: t('error.forbidden'), requestId };
  if (error.status === 404) return { message: t('error.not_found'), requestId };
  if (error.status === 402) return { message: t('error.insufficient_quota'), requestId };
  if (error.status === 429) return { message: t('error.rate_limit_exceeded'), requestId };
  if (error.status === 503) return { message: t('error.unavailable'), requestId };
  if (error.status >= 500) return { message: t('error.server'), requestId };
  return { message: t('error.unexpected'), detail: error.message, requestId };
}
