/**
 * The chaos run's clients: closed loops sending a seeded mix of every kind of request (chat plain
 * and streamed, embeddings, images, speech, transcriptions, videos and their polls) to whichever api
 * replica is up, and recording each request: its answer (status, `X-Request-Id`, `Retry-After`,
 * the cost it states, a video's id) or its failure (connection failure, timeout), with times.
 */
import { FormData, fetch } from 'undici';
import { wavOfSeconds } from '../../shared/src/file-formats/builders/wav.ts';
import type { ManagedProcess } from './processes.ts';

export const KINDS = [
  'chat',
  'chat-stream',
  'embeddings',
  'image',
  'speech',
  'transcription',
  'video',
  'video-get',
] as const;
export type Kind = (typeof KINDS)[number];

/** The mix: relative weights of the kinds a client picks from. */
export const DEFAULT_MIX: Readonly<Record<Kind, number>> = {
  chat: 30,
  'chat-stream': 15,
  embeddings: 18,
  image: 10,
  speech: 8,
  transcription: 7,
  video: 6,
  'video-get': 6,
};

/** One request as the client saw it. */
export interface SentRequest {
  readonly seq: number;
  readonly kind: Kind;
  readonly client: number;
  readonly accountId: string;
  readonly replica: string;
  readonly apiPid: number | undefined;
  readonly startedAt: number;
  endedAt: number;
  status?: number;
  requestId?: string;
  retryAfter?: string;
  errorCode?: string;
  /** A connection failure or timeout (no answer, or an answer cut after its headers). */
  failure?: string;
  /** The failure came after a 200's headers (the body was cut). */
  cutAfterHeaders?: boolean;
  timedOut?: boolean;
  /** A streamed chat that carried an error event. */
  streamError?: string;
  /** A streamed chat that ended with `[DONE]`. */
  streamDone?: boolean;
  /** The cost the answer states (µIRT), when it states one. */
  costMicros?: bigint;
  /** The video a 202 created (POST) or polled (GET). */
  videoId?: string;
  videoStatus?: string;
}

/** A key a client sends with. */
export interface ClientKey {
  readonly accountId: string;
  readonly key: string;
}

/** A seeded pseudo-random generator (mulberry32): the same seed gives the same choices. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Cost in IRT as answered (a JS number) → µIRT. */
function micros(cost: unknown): bigint | undefined {
  return typeof cost === 'number' && Number.isFinite(cost) ? BigInt(Math.round(cost * 1_000_000)) : undefined;
}

function failureText(err: unknown): { text: string; timedOut: boolean } {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return { text: err.name, timedOut: true };
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? err.message;
    return { text: `${err.message}${detail === err.message ? '' : ` (${detail})`}`, timedOut: false };
  }
  return { text: String(err), timedOut: false };
}

const WAV = wavOfSeconds(1, { toneHz: 440 });

interface Built {
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly body?: string | FormData;
  readonly json: boolean;
}

function build(kind: Kind, seq: number, videoId: string | undefined): Built {
  const post = (path: string, body: unknown): Built => ({
    path,
    method: 'POST',
    body: JSON.stringify(body),
    json: true,
  });
  switch (kind) {
    case 'chat':
      return post('/v1/chat/completions', {
        model: 'demo/chat',
        messages: [{ role: 'user', content: `chaos ${seq}: say something short` }],
        max_tokens: 48,
      });
    case 'chat-stream':
      return post('/v1/chat/completions', {
        model: 'demo/chat',
        messages: [{ role: 'user', content: `chaos ${seq}: stream something` }],
        max_tokens: 48,
        stream: true,
        stream_options: { include_usage: true },
      });
    case 'embeddings':
      return post('/v1/embeddings', { model: 'demo/embedding', input: [`chaos ${seq}`, 'second input'] });
    case 'image':
      return post('/v1/images/generations', { model: 'demo/image', prompt: `chaos ${seq}`, n: 1 });
    case 'speech':
      return post('/v1/audio/speech', { model: 'demo/tts', input: `chaos request ${seq}`, voice: 'alloy' });
    case 'transcription': {
      const form = new FormData();
      form.append('model', 'demo/stt');
      form.append('file', new Blob([new Uint8Array(WAV)], { type: 'audio/wav' }), 'chaos.wav');
      return { path: '/v1/audio/transcriptions', method: 'POST', body: form, json: false };
    }
    case 'video':
      return post('/v1/videos', { model: 'demo/video', prompt: `chaos ${seq}`, duration: 2 });
    case 'video-get':
      return { path: `/v1/videos/${videoId}`, method: 'GET', json: false };
  }
}

/** Reads a streamed chat: the error event, the `[DONE]`, and the cost of the usage chunk. */
function readStream(text: string, record: SentRequest): void {
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const data = line.slice(6).trim();
    if (data === '[DONE]') {
      record.streamDone = true;
      continue;
    }
    try {
      const event = JSON.parse(data) as { error?: { message?: string }; service?: { cost?: number } };
      if (event.error !== undefined) record.streamError = event.error.message ?? 'error event';
      const cost = micros(event.service?.cost);
      if (cost !== undefined) record.costMicros = cost;
    } catch {
      record.streamError = `unparsable event: ${data.slice(0, 80)}`;
    }
  }
}

export interface LoadOptions {
  readonly clients: number;
  readonly seed: number;
  readonly mix?: Readonly<Record<Kind, number>>;
  readonly requestTimeoutMs: number;
  /** Pause between two requests of a client. */
  readonly thinkMs: number;
  /** Pause after a 503 (the answer asks to retry later). */
  readonly backoffMs: number;
}

export interface Load {
  readonly records: SentRequest[];
  /** Requests of these kinds in flight on a replica now (sent, neither answered nor failed). */
  inFlight(replica: string, kinds: readonly Kind[]): number;
  /** Stops the clients after their current request; resolves once all are done. */
  stop(): Promise<void>;
}

/** Starts the clients; each sends with its own key (`keys[i % keys.length]`) to a replica that is up. */
export function startLoad(
  apis: readonly ManagedProcess[],
  keys: readonly ClientKey[],
  options: LoadOptions,
): Load {
  const records: SentRequest[] = [];
  const mix = options.mix ?? DEFAULT_MIX;
  const total = KINDS.reduce((sum, kind) => sum + mix[kind], 0);
  let stopped = false;
  let seq = 0;
  const open = new Set<SentRequest>();

  const client = async (index: number) => {
    const random = seededRandom(options.seed * 7919 + index);
    const key = keys[index % keys.length] as ClientKey;
    const videos: string[] = [];
    while (!stopped) {
      const up = apis.filter((api) => api.up && api.agent !== undefined);
      if (up.length === 0) {
        await sleep(100);
        continue;
      }
      let pick = random() * total;
      let kind: Kind = 'chat';
      for (const candidate of KINDS) {
        pick -= mix[candidate];
        if (pick < 0) {
          kind = candidate;
          break;
        }
      }
      const videoId = videos.length === 0 ? undefined : videos[Math.floor(random() * videos.length)];
      if (kind === 'video-get' && videoId === undefined) kind = 'chat';
      const api = up[Math.floor(random() * up.length)] as ManagedProcess;
      seq += 1;
      const record: SentRequest = {
        seq,
        kind,
        client: index,
        accountId: key.accountId,
        replica: api.name,
        apiPid: api.pid,
        startedAt: Date.now(),
        endedAt: 0,
      };
      if (kind === 'video-get') record.videoId = videoId;
      records.push(record);
      open.add(record);
      await send(api, key.key, record, build(kind, seq, videoId), options.requestTimeoutMs);
      open.delete(record);
      if (record.kind === 'video' && record.status === 202 && record.videoId !== undefined)
        videos.push(record.videoId);
      if (
        record.kind === 'video-get' &&
        (record.videoStatus === 'completed' || record.videoStatus === 'failed')
      )
        videos.splice(videos.indexOf(record.videoId ?? ''), 1);
      await sleep(record.status === 503 ? options.backoffMs : options.thinkMs);
    }
  };

  const loops = Array.from({ length: options.clients }, (_, i) => client(i));
  return {
    records,
    inFlight(replica, kinds) {
      let n = 0;
      for (const record of open) if (record.replica === replica && kinds.includes(record.kind)) n += 1;
      return n;
    },
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

async function send(
  api: ManagedProcess,
  key: string,
  record: SentRequest,
  request: Built,
  timeoutMs: number,
): Promise<void> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (request.json) headers['content-type'] = 'application/json';
  let answered = false;
  try {
    const response = await fetch(`${api.origin}${request.path}`, {
      method: request.method,
      headers,
      body: request.body,
      dispatcher: api.agent,
      signal: AbortSignal.timeout(timeoutMs),
    });
    answered = true;
    record.status = response.status;
    record.requestId = response.headers.get('x-request-id') ?? undefined;
    record.retryAfter = response.headers.get('retry-after') ?? undefined;
    const headerCost = response.headers.get('x-service-cost');
    if (record.kind === 'speech' || response.headers.get('content-type')?.startsWith('audio/')) {
      await response.arrayBuffer();
      if (response.status === 200 && headerCost !== null) record.costMicros = micros(Number(headerCost));
    } else if (record.kind === 'chat-stream' && response.status === 200) {
      readStream(await response.text(), record);
    } else {
      const text = await response.text();
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      const error = body?.error as { code?: string; type?: string } | undefined;
      if (response.status >= 400) record.errorCode = error?.code ?? error?.type ?? text.slice(0, 80);
      const service = body?.service as { cost?: number } | undefined;
      const cost = micros(service?.cost);
      if (cost !== undefined) record.costMicros = cost;
      if (record.kind === 'video' || record.kind === 'video-get') {
        if (typeof body?.id === 'string') record.videoId = body.id;
        if (typeof body?.status === 'string') record.videoStatus = body.status;
      }
    }
  } catch (err) {
    const { text, timedOut } = failureText(err);
    record.failure = text;
    record.timedOut = timedOut;
    record.cutAfterHeaders = answered;
  }
  record.endedAt = Date.now();
}
