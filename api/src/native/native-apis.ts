import type { FastifyInstance } from 'fastify';
import { errors } from '../../../shared/src/errors/app-error.ts';
import {
  anthropicFieldError,
  elevenlabsFieldError,
  type FieldErrorBody,
  googleFieldError,
  openaiFieldError,
} from '../../../shared/src/native/field-error-answers.ts';
import { PROVIDER_IDS } from '../../../shared/src/providers/provider-ids.ts';
import { anthropicNativeRoutes } from './anthropic/anthropic.routes.ts';
import { elevenlabsNativeRoutes } from './elevenlabs/elevenlabs.routes.ts';
import { answerFieldErrors } from './field-error-handler.ts';
import { geminiNativeRoutes } from './google/gemini.routes.ts';
import type { NativeDeps } from './native-deps.ts';
import { isProviderEnabled } from './native-targets.ts';
import { openaiNativeRoutes } from './openai/openai.routes.ts';

/** A provider-native API: its path prefix, the provider that serves it, its routes and error format. */
export interface NativeApi {
  readonly prefix: string;
  readonly provider: string;
  readonly routes: (app: FastifyInstance, deps: NativeDeps) => Promise<void>;
  /** How a field out of bounds is answered: the provider's own format. */
  readonly fieldError: FieldErrorBody;
}

/** The native APIs the gateway serves (docs/native.md lists their endpoints and billing). */
export const NATIVE_APIS: readonly NativeApi[] = [
  {
    prefix: 'anthropic',
    provider: 'anthropic',
    routes: anthropicNativeRoutes,
    fieldError: anthropicFieldError,
  },
  {
    prefix: 'elevenlabs',
    provider: 'elevenlabs',
    routes: elevenlabsNativeRoutes,
    fieldError: elevenlabsFieldError,
  },
  { prefix: 'openai', provider: 'openai', routes: openaiNativeRoutes, fieldError: openaiFieldError },
  { prefix: 'gemini', provider: 'google', routes: geminiNativeRoutes, fieldError: googleFieldError },
];

/**
 * The native APIs whose provider has a credential here, behind the same admission as `/v1` (the
 * caller registers this inside its authenticated scope). Their bodies are kept as the bytes
 * sent (never parsed and re-serialised: they are forwarded unchanged but for the model name).
 */
export async function nativeApiRoutes(app: FastifyInstance, deps: NativeDeps): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: deps.config.maxBodyBytes },
    (_r, body, done) => done(null, body),
  );
  for (const api of NATIVE_APIS) {
    // One scope per API: its field errors answered in its provider's format. Registered whatever
    // the channels now: a provider without an enabled channel answers 404 per request, so adding
    // or removing its channels changes it without a restart.
    await app.register(async (scope) => {
      scope.addHook('onRequest', async () => {
        if (!isProviderEnabled(deps.config, deps.channels, api.provider))
          throw errors.providerNotFound(api.prefix);
      });
      answerFieldErrors(scope, api.fieldError);
      await api.routes(scope, deps);
    });
  }
}

/**
 * What the native prefixes answer outside their served endpoints, without a key (a routing
 * answer, like an unknown `/v1` path): 404 `provider_not_found` under the prefix of a provider
 * with no native API here or without a credential, 404 `endpoint_not_supported` under a served
 * prefix for any other path or method.
 */
export function registerNativeFallbacks(
  app: FastifyInstance,
  deps: Pick<NativeDeps, 'config' | 'channels'>,
): void {
  const served = new Map(NATIVE_APIS.map((api) => [api.prefix, api]));
  const prefixes = new Set([...served.keys(), ...PROVIDER_IDS.filter((id) => id !== 'demo')]);
  for (const prefix of prefixes) {
    const api = served.get(prefix);
    app.all(`/${prefix}/*`, async (request) => {
      const path = request.url.split('?')[0] ?? request.url;
      const enabled = api !== undefined && isProviderEnabled(deps.config, deps.channels, api.provider);
      if (!enabled) throw errors.providerNotFound(prefix);
      throw errors.endpointNotSupported(request.method, path);
    });
  }
}
