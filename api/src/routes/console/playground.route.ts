import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { guardConsoleRoutes, requireHolderAccount, requireSignedIn } from '../../console/console-auth.ts';
import { ensurePlaygroundKey } from '../../use-cases/ensure-playground-key.ts';
import type { ConsoleDeps } from './console-deps.ts';

/** Under `/console/api`: `/playground/v1/<path>` is sent on as `/v1/<path>`. */
const PREFIX = '/playground';

/** The `/v1` operations the playground tries; nothing else of `/v1` is reachable through it. */
const RELAYED = [
  ['POST', '/v1/chat/completions'],
  ['POST', '/v1/images/generations'],
  ['POST', '/v1/audio/speech'],
  ['POST', '/v1/videos'],
  ['GET', '/v1/videos/:id'],
  ['GET', '/v1/videos/:id/content'],
] as const;

/** What the page may send along (the body's type, a video's byte range) and what it gets back. */
const REQUEST_HEADERS = ['content-type', 'accept', 'range'] as const;
const ANSWER_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'accept-ranges',
  'content-disposition',
  'cache-control',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-service-cost',
] as const;

/** The id of the `/v1` request behind a playground answer: the id its ledger entry has. */
const relayedIds = new WeakMap<FastifyRequest, string>();

/**
 * The playground's route into `/v1` (docs/console.md, "Playground"): a signed-in holder's request
 * is made, inside this process, as the same `/v1` request with the session's playground key, so it
 * is admitted, rate-limited, charged and logged like any client's, and the key never reaches the
 * page. The answer (status, body, streamed or not, and its headers) comes back as `/v1` gave it.
 */
export async function playgroundRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  guardConsoleRoutes(
    app,
    { ...deps.console, ...deps.accounts, adminToken: deps.config.adminToken },
    'holder',
  );
  // After the app's own hook: the answer names the request that was charged.
  app.addHook('onSend', (request, reply, payload, done) => {
    const relayed = relayedIds.get(request);
    if (relayed !== undefined) reply.header('x-request-id', relayed);
    done(null, payload);
  });
  const keyDeps = { ...deps.accounts, sessions: deps.console.sessions };
  for (const [method, path] of RELAYED) {
    app.route({
      method,
      url: `${PREFIX}${path}`,
      handler: (request, reply) => relay(app, keyDeps, request, reply),
    });
  }
}

async function relay(
  app: FastifyInstance,
  keyDeps: Parameters<typeof ensurePlaygroundKey>[0],
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const account = requireHolderAccount(request);
  const { token, session } = requireSignedIn(request);
  const secret = await ensurePlaygroundKey(keyDeps, {
    accountId: account.id,
    sessionToken: token,
    current: session.playground,
  });
  const url = request.url.slice(request.url.indexOf(PREFIX) + PREFIX.length);
  // The page going away ends the `/v1` request as a client going away would (its upstream call
  // stops). The relayed request is reachable once its answer starts (inject resolves at its head):
  // a page gone before then ends it at that moment.
  let cancel: (() => void) | undefined;
  let gone = false;
  reply.raw.once('close', () => {
    if (reply.raw.writableFinished) return;
    gone = true;
    cancel?.();
  });
  const answer = await app.inject({
    method: request.method as 'GET' | 'POST',
    url,
    headers: { ...picked(request.headers, REQUEST_HEADERS), authorization: `Bearer ${secret}` },
    ...(request.body === undefined ? {} : { payload: JSON.stringify(request.body) }),
    // The holder's own address: the request log and any per-IP rule see the client, not this process.
    remoteAddress: request.ip,
    payloadAsStream: true,
  });
  cancel = () => answer.raw.res.destroy();
  if (gone) cancel();
  const relayedId = answer.headers['x-request-id'];
  if (typeof relayedId === 'string') {
    relayedIds.set(request, relayedId);
    request.log.info({ accountId: account.id, relayedRequestId: relayedId }, 'console: playground request');
  }
  return reply.code(answer.statusCode).headers(picked(answer.headers, ANSWER_HEADERS)).send(answer.stream());
}

function picked(
  headers: Record<string, string | string[] | number | undefined>,
  names: readonly string[],
): Record<string, string | string[] | number> {
  const out: Record<string, string | string[] | number> = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
