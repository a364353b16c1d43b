import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import type { LiveChannel } from '../../../shared/src/channels/channel.ts';
import { elevenlabsHeaders } from '../../../shared/src/providers/elevenlabs/api.ts';
import { openAICompatibleAdapter } from '../../../shared/src/providers/openai-compatible/create-openai-compatible.ts';
import { adapterOf, HTTP_ADAPTERS } from '../../../shared/src/providers/provider-registry.ts';
import { runwayHeaders } from '../../../shared/src/providers/runway/api.ts';
import { HttpChatRoute } from '../../../shared/src/upstream/http-chat-route.ts';
import { RouteFailure } from '../../../shared/src/upstream/route-attempts.ts';
import { scrubSecrets } from '../../../shared/src/upstream/secret-scrubber.ts';
import { type UpstreamClient, UpstreamTransportError } from '../../../shared/src/upstream/upstream-client.ts';
import { isCredentialRefusal } from '../../../shared/src/upstream/upstream-failure.ts';

/** What `POST /admin/v1/channels/{id}/test` answers. */
export interface ChannelTestResult {
  readonly ok: boolean;
  readonly status?: number;
  readonly latency_ms: number;
  readonly error?: string;
  /** Whether the provider refused the credential (the channel stays or becomes auto-disabled). */
  readonly credentialRefused: boolean;
}

/** How long a test may take before it counts as failed. */
const TEST_TIMEOUT_MS = 15_000;

/**
 * One small real request through a channel's URL and credential: a 1-token chat on the cheapest
 * chat model of its provider it serves, or for a provider without chat its cheapest documented
 * call (ElevenLabs `GET /v1/user`, Runway `GET /v1/organization`). Never retried, never billed.
 */
export async function testChannel(
  client: UpstreamClient,
  channel: LiveChannel,
  models: readonly CatalogueModel[],
): Promise<ChannelTestResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(TEST_TIMEOUT_MS);
  try {
    const chatModel = cheapestChatModel(channel, models);
    if (chatModel !== undefined) {
      const adapter = adapterOf(
        { adapters: HTTP_ADAPTERS, compatibleAdapter: openAICompatibleAdapter },
        channel.provider,
      );
      if (adapter?.chat === undefined)
        return failed(latency(), 'this provider has no chat call to test with');
      const target = {
        baseUrl: channel.baseUrl,
        apiKey: channel.apiKey,
        nativeModel: chatModel,
        maxOutputTokens: 1,
      };
      await new HttpChatRoute(client, channel.provider, adapter, target).complete(
        { model: chatModel, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 },
        signal,
      );
      return { ok: true, status: 200, latency_ms: latency(), credentialRefused: false };
    }
    const call = accountCall(channel);
    if (call === undefined) return failed(latency(), 'no model of this provider is served by the channel');
    const response = await client.sendMedia({ method: 'GET', url: call.url, headers: call.headers }, signal);
    await response.body.dump().catch(() => undefined);
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      status: response.status,
      latency_ms: latency(),
      ...(ok ? {} : { error: `the provider answered HTTP ${response.status}` }),
      credentialRefused: isCredentialRefusal(response.status),
    };
  } catch (err) {
    if (err instanceof RouteFailure) {
      const { failure } = err;
      return {
        ok: false,
        ...(failure.status === null ? {} : { status: failure.status }),
        latency_ms: latency(),
        error: scrubSecrets(failure.message),
        credentialRefused: failure.credentialRejected === true,
      };
    }
    if (err instanceof UpstreamTransportError)
      return failed(latency(), scrubSecrets(`the provider did not answer (${err.failure})`));
    return failed(latency(), scrubSecrets(err instanceof Error ? err.message : String(err)));
  }
}

function failed(latencyMs: number, error: string): ChannelTestResult {
  return { ok: false, latency_ms: latencyMs, error, credentialRefused: false };
}

/** The native id of the cheapest chat model of the channel's provider that the channel serves. */
function cheapestChatModel(channel: LiveChannel, models: readonly CatalogueModel[]): string | undefined {
  let best: { nativeId: string; price: number } | undefined;
  for (const model of models) {
    if (model.type !== 'chat') continue;
    if (channel.models !== null && !channel.models.has(model.id)) continue;
    const route = model.routes.find((r) => r.provider === channel.provider);
    if (route === undefined) continue;
    const price = model.pricing.input + (model.pricing.output ?? 0);
    if (best === undefined || price < best.price) best = { nativeId: route.native_id, price };
  }
  return best?.nativeId;
}

/** The account call of a provider without chat. */
function accountCall(channel: LiveChannel): { url: string; headers: Record<string, string> } | undefined {
  const base = channel.baseUrl.replace(/\/+$/, '');
  if (channel.provider === 'elevenlabs')
    return { url: `${base}/v1/user`, headers: elevenlabsHeaders(channel.apiKey, 'application/json') };
  if (channel.provider === 'runway')
    return { url: `${base}/v1/organization`, headers: runwayHeaders(channel.apiKey) };
  return undefined;
}
