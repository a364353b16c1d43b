/**
 * The registries resolve a model's catalogue routes to routes the use cases call: a `demo` route
 * to the simulator (always, no key needed), a configured provider to its HTTP adapter with its
 * target, an unconfigured one to nothing; catalogue order kept.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../shared/src/config/config.ts';
import { anthropicAdapter } from '../../../../shared/src/providers/anthropic/index.ts';
import { DemoChatRoute } from '../../../../shared/src/providers/demo/demo-chat-route.ts';
import { DemoMediaRoute } from '../../../../shared/src/providers/demo/media/demo-media-route.ts';
import { usableMediaRoutes } from '../../../../shared/src/providers/media-registry.ts';
import type { MediaRoute } from '../../../../shared/src/providers/media-route.ts';
import { openaiMediaAdapter } from '../../../../shared/src/providers/openai/media/index.ts';
import { openAICompatibleAdapter } from '../../../../shared/src/providers/openai-compatible/create-openai-compatible.ts';
import { isRouteConfigured, usableRoutes } from '../../../../shared/src/providers/provider-registry.ts';
import { HttpChatRoute } from '../../../../shared/src/upstream/http-chat-route.ts';
import { HttpMediaRoute } from '../../../../shared/src/upstream/http-media-route.ts';
import { firstSuccessfulRoute } from '../../../../shared/src/upstream/route-attempts.ts';
import type { UpstreamClient } from '../../../../shared/src/upstream/upstream-client.ts';
import { staticChannelRouting } from '../../../helpers/static-channels.ts';

const config = loadConfig({
  REDIS_URL: 'redis://127.0.0.1:1',
  MONGO_URL: 'mongodb://127.0.0.1:1',
  ANTHROPIC_API_KEY: 'sk-ant-test',
  ANTHROPIC_BASE_URL: 'http://anthropic.test',
  OPENAI_API_KEY: 'sk-openai-test',
  OPENAI_BASE_URL: 'http://openai.test',
  OPENAI_COMPATIBLE_UPSTREAMS: 'acme',
  ACME_BASE_URL: 'http://acme.test/v1',
  ACME_API_KEY: 'acme-key',
  DEMO_VIDEO_RENDER_MS: '1234',
});
const client = {} as UpstreamClient;
const channels = staticChannelRouting(config);
const model = (
  routes: Array<{ provider: string; native_id: string }>,
  max_output_tokens: number | null = null,
) => ({
  id: 'test/model',
  routes,
  max_output_tokens,
});
const now = () => new Date(0);

describe('chat route registry', () => {
  it('resolves demo, built-in and compatible routes in catalogue order, skipping unconfigured providers', () => {
    const routes = usableRoutes(
      model(
        [
          { provider: 'google', native_id: 'gemini-x' },
          { provider: 'anthropic', native_id: 'claude-x' },
          { provider: 'demo', native_id: 'demo-chat' },
          { provider: 'acme', native_id: 'acme-x' },
          { provider: 'unknown', native_id: 'y' },
        ],
        4096,
      ),
      { channels, client },
    );
    expect(routes.map((route) => [route.provider, route.nativeModel])).toEqual([
      ['anthropic', 'claude-x'],
      ['demo', 'demo-chat'],
      ['acme', 'acme-x'],
    ]);
    const [anthropic, demo, acme] = routes;
    expect(anthropic).toBeInstanceOf(HttpChatRoute);
    expect(anthropic).toMatchObject({
      adapter: anthropicAdapter,
      target: {
        baseUrl: 'http://anthropic.test',
        apiKey: 'sk-ant-test',
        nativeModel: 'claude-x',
        maxOutputTokens: 4096,
      },
    });
    expect(demo).toBeInstanceOf(DemoChatRoute);
    expect(acme).toBeInstanceOf(HttpChatRoute);
    expect(acme).toMatchObject({
      adapter: openAICompatibleAdapter,
      target: { baseUrl: 'http://acme.test/v1' },
    });
  });

  it('sets no output limit on a target when the model has none', () => {
    const [route] = usableRoutes(model([{ provider: 'anthropic', native_id: 'claude-x' }]), {
      channels,
      client,
    });
    expect((route as HttpChatRoute).target).not.toHaveProperty('maxOutputTokens');
  });

  it('always counts the demo provider as configured, any other only with a key', () => {
    const bare = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1', MONGO_URL: 'mongodb://127.0.0.1:1' });
    const none = staticChannelRouting(bare);
    expect(isRouteConfigured({ provider: 'demo' }, none)).toBe(true);
    expect(isRouteConfigured({ provider: 'openai' }, none)).toBe(false);
    expect(isRouteConfigured({ provider: 'openai' }, channels)).toBe(true);
    expect(isRouteConfigured({ provider: 'acme' }, channels)).toBe(true);
    expect(
      usableRoutes(model([{ provider: 'demo', native_id: 'demo-chat' }]), { channels: none, client }),
    ).toHaveLength(1);
  });
});

describe('media route registry', () => {
  it('resolves demo and built-in media routes; a compatible upstream has no media adapter', () => {
    const routes = usableMediaRoutes(
      model([
        { provider: 'openai', native_id: 'gpt-image-1' },
        { provider: 'acme', native_id: 'acme-image' },
        { provider: 'demo', native_id: 'demo-image' },
        { provider: 'anthropic', native_id: 'claude-x' },
      ]),
      { config, channels, client, now },
    );
    expect(routes.map((route) => [route.provider, route.nativeModel, route.readsAudio])).toEqual([
      ['openai', 'gpt-image-1', true],
      ['demo', 'demo-image', false],
    ]);
    expect(routes[0]).toBeInstanceOf(HttpMediaRoute);
    expect(routes[0]).toMatchObject({
      adapter: openaiMediaAdapter,
      target: { baseUrl: 'http://openai.test' },
    });
    expect(routes[0]).not.toHaveProperty('target.maxOutputTokens');
    expect(routes[1]).toBeInstanceOf(DemoMediaRoute);
  });

  it('fails a route whose provider lacks the capability as a 502 of that route: the next one is tried', async () => {
    const withGroq = loadConfig({
      REDIS_URL: 'redis://127.0.0.1:1',
      MONGO_URL: 'mongodb://127.0.0.1:1',
      GROQ_API_KEY: 'gsk-test',
    });
    const deps = { config: withGroq, channels: staticChannelRouting(withGroq), client, now };
    // Groq's media adapter transcribes only: a video route through it cannot submit.
    const routes = usableMediaRoutes(
      model([
        { provider: 'groq', native_id: 'whisper-large-v3' },
        { provider: 'demo', native_id: 'demo-video' },
      ]),
      deps,
    );
    const request = { prompt: 'waves', duration: 4 };
    const served = await firstSuccessfulRoute(routes, 'generate_content', (route) =>
      route.submit(request, 'vid_1'),
    );
    expect(served.route.provider).toBe('demo');
    expect(served.value).toBe('demo-vid_1');

    const [groqOnly] = usableMediaRoutes(model([{ provider: 'groq', native_id: 'whisper-large-v3' }]), deps);
    await expect(
      firstSuccessfulRoute([groqOnly as MediaRoute], 'generate_content', (route) =>
        route.submit(request, 'vid_2'),
      ),
    ).rejects.toMatchObject({ status: 502, type: 'upstream_error' });
  });

  it("gives the demo route the configured render time and the process's clock", async () => {
    const [demo] = usableMediaRoutes(model([{ provider: 'demo', native_id: 'demo-video' }]), {
      config,
      channels,
      client,
      now: () => new Date(1233),
    });
    await expect(demo?.poll({ operationId: 'demo-v', submittedAt: new Date(0) })).resolves.toEqual({
      state: 'running',
      progress: 99,
    });
  });
});
