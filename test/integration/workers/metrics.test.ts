/**
 * Prometheus metrics of a worker process (docs/observability.md): a real worker process
 * (`node workers/src/main.ts`) with `METRICS_PORT` serves `/metrics` on its own small HTTP server.
 * After jobs through the api (an image, an image the provider refuses, a demo video the worker
 * charges, a speech job whose first taker stalled), its scrape counts job runs by kind and outcome
 * with their durations, the stalled job it recovered, its upstream attempts and the video's charge
 * (equal to the ledger's). The api charged the image and the speech: its own metrics name the
 * provider the worker used.
 */
import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { metricsText } from '../../../shared/src/observability/registry.ts';
import { createRedis } from '../../../shared/src/redis/redis.ts';
import {
  jobIdOf,
  type MediaClient,
  type MediaGateway,
  startMediaGateway,
} from '../../helpers/media-gateway.ts';
import { createVideo, pollVideo } from '../../helpers/media-videos.ts';
import { parsePrometheusText, type Scrape } from '../../helpers/prometheus-text.ts';

const TOKEN = 'worker-metrics-token-0123456789abc';

let m: MediaGateway;
let user: MediaClient;
let origin: string;
let grabber: Worker | undefined;
const grabberConnection = () => createRedis(m.gateway.config.redis, { forBullmq: true });

beforeAll(async () => {
  m = await startMediaGateway({ apiEnv: { MEDIA_WAIT_TIMEOUT_MS: '20000' } });
  user = await m.fundedClient();
});
afterAll(async () => {
  await grabber?.close(true);
  await m?.close();
});

const post = (path: string, body: unknown) =>
  fetch(`${m.gateway.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function scrape(authorization?: string): Promise<Response> {
  return fetch(`${origin}/metrics`, { headers: authorization === undefined ? {} : { authorization } });
}

describe('a worker process with METRICS_PORT', () => {
  let metrics: Scrape;
  let speechJobId = '';
  let videoCharge = 0n;

  beforeAll(async () => {
    // A speech job taken by a worker that then stops renewing its lock (as a killed worker would).
    const connection = grabberConnection();
    grabber = new Worker('speech', null, {
      connection,
      prefix: m.gateway.config.queues.prefix,
      lockDuration: 500,
      autorun: false,
    });
    const speech = post('/v1/audio/speech', {
      model: 'openai/gpt-4o-mini-tts',
      input: 'Hello',
      voice: 'alloy',
    });
    let taken: { id?: string } | undefined;
    while (taken === undefined) taken = await grabber.getNextJob('stalled-taker');
    speechJobId = taken.id ?? '';

    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    await m.startWorker({
      METRICS_PORT: String(port),
      METRICS_TOKEN: TOKEN,
      DEMO_VIDEO_RENDER_MS: '0',
      WORKER_LOCK_DURATION_MS: '1000',
      WORKER_STALLED_INTERVAL_MS: '500',
    });

    // The worker hands the stalled job back to the queue and runs it: the api's wait ends in 200.
    const spoken = await speech;
    expect(spoken.status).toBe(200);
    expect(jobIdOf('speech', spoken.headers.get('x-request-id'))).toBe(speechJobId);

    const image = await post('/v1/images/generations', {
      model: 'openai/gpt-image-1',
      prompt: 'a lighthouse',
    });
    expect(image.status).toBe(200);
    m.fakes.openai.script.next({ kind: 'status', status: 400 });
    const refused = await post('/v1/images/generations', { model: 'openai/gpt-image-1', prompt: 'refused' });
    expect(refused.status).toBe(400);

    const video = await createVideo(m, user.key, { model: 'demo/video', prompt: 'waves', duration: 4 });
    await pollVideo(user.client, video.id);
    const charge = (await m.charges(user.accountId)).find((entry) => entry.id === video.id);
    videoCharge = charge === undefined ? 0n : -charge.amountMicros;

    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    metrics = parsePrometheusText(await res.text());
  });

  it('times job runs by kind and outcome', () => {
    const runs = (kind: string, outcome: string) =>
      metrics.value('gateway_job_duration_seconds_count', { kind, outcome });
    expect(runs('image', 'completed')).toBe(1);
    expect(runs('image', 'failed')).toBe(1);
    expect(runs('speech', 'completed')).toBe(1);
    expect(runs('video', 'completed')).toBe(1);
    const seconds = metrics.value('gateway_job_duration_seconds_sum', {
      kind: 'image',
      outcome: 'completed',
    });
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(20);
  });

  it('counts the stalled job it handed back to the queue', () => {
    expect(metrics.value('gateway_jobs_stalled_total', { kind: 'speech' })).toBe(1);
    expect(metrics.value('gateway_jobs_stalled_total', { kind: 'image' })).toBe(0);
  });

  it('counts its upstream attempts and the video it charged, equal to the ledger', () => {
    expect(metrics.value('gateway_upstream_attempts_total', { provider: 'openai', outcome: 'ok' })).toBe(2);
    expect(metrics.value('gateway_upstream_attempts_total', { provider: 'openai', outcome: '4xx' })).toBe(1);
    expect(metrics.value('gateway_upstream_attempts_total', { provider: 'demo', outcome: 'ok' })).toBe(1);
    expect(videoCharge).toBeGreaterThan(0n);
    const cost = metrics.value('gateway_cost_micro_irt_total', { model: 'demo/video', provider: 'demo' });
    expect(BigInt(cost)).toBe(videoCharge);
  });

  it('serves only /metrics, and only to the METRICS_TOKEN bearer', async () => {
    const none = await scrape();
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({
      error: { code: 'invalid_metrics_token', type: 'invalid_api_key' },
    });
    expect((await scrape('Bearer not-the-token-not-the-token')).status).toBe(401);
    const other = await fetch(`${origin}/healthz`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: { type: 'invalid_request_error', param: null } });
  });

  it('leaves the charges of synchronous jobs to the api, which names the provider the worker used', async () => {
    const api = parsePrometheusText(await metricsText());
    const charges = await m.charges(user.accountId);
    const image = charges.filter((entry) => entry.id.startsWith('img_'));
    expect(image.length).toBe(1);
    const imageCost = api.value('gateway_cost_micro_irt_total', {
      model: 'openai/gpt-image-1',
      provider: 'openai',
    });
    expect(BigInt(imageCost)).toBe(-(image[0]?.amountMicros ?? 0n));
    expect(
      api.value('gateway_cost_micro_irt_total', { model: 'openai/gpt-4o-mini-tts', provider: 'openai' }),
    ).toBeGreaterThan(0);
    expect(api.value('gateway_cost_micro_irt_total', { provider: 'unknown' })).toBe(0);
    expect(metrics.value('gateway_cost_micro_irt_total', { model: 'openai/gpt-image-1' })).toBe(0);
  });
});
