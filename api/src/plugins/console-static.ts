import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm run build:console` (Vite) writes the web console (git-ignored). */
export const CONSOLE_DIST_DIR = fileURLToPath(new URL('../../console/dist/', import.meta.url));

export interface ConsoleStaticOptions {
  /** The built console; default `api/console/dist`. */
  readonly distDir?: string;
}

/**
 * The console's pages: no inline script or style, data only from this origin (the console's own
 * `/console/api` and the playground's `/v1` calls), images and media also from `data:`/`blob:` URLs
 * (generated images, speech and videos), never framed.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const PAGE_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** Vite names every file under `assets/` by its content hash: it never changes, so caches keep it a year. */
const ASSET_CACHE = { maxAge: '365d', immutable: true, cacheControl: true } as const;

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body>
<h1>The web console is not built</h1>
<p>Build it with <code>npm run build:console</code> (or start the gateway with <code>npm start</code>,
which builds it when missing), then reload this page. The API itself works.</p>
<hr>
<p lang="fa" dir="rtl">کنسول وب ساخته نشده است: <code>npm run build:console</code> را اجرا کنید و صفحه را دوباره بارگذاری کنید.</p>
</body></html>
`;

/**
 * Serves the web console (a single-page app) under `/console/`: hashed assets with a year of cache,
 * every other path (a client route such as `/console/keys`) answered with `index.html`, never
 * cached, under a strict Content-Security-Policy; `GET /` redirects to `/console/`. Unknown
 * `/console/api/…` paths stay JSON 404s. Without a build it answers a short 503 page saying how to
 * make one. Whether the build exists is checked per request, so building while the api runs works.
 */
export async function consoleStatic(app: FastifyInstance, options: ConsoleStaticOptions = {}): Promise<void> {
  const root = options.distDir ?? CONSOLE_DIST_DIR;
  const indexFile = join(root, 'index.html');
  // Encapsulated: `reply.sendFile` exists only inside this plugin; nothing is served by itself.
  await app.register(fastifyStatic, { root, serve: false, suppressWarning: true, index: false });

  const sendIndex = (reply: FastifyReply) => {
    if (!existsSync(indexFile)) return notBuilt(reply);
    return reply
      .headers(PAGE_HEADERS)
      .header('cache-control', 'no-cache')
      .sendFile('index.html', { cacheControl: false });
  };

  app.get('/', (_request, reply) => reply.redirect('/console/', 302));
  app.get('/console', (_request, reply) => sendIndex(reply));
  app.get<{ Params: { '*': string } }>('/console/*', (request, reply) => {
    const path = request.params['*'];
    // The console's JSON API: a path no route matched is the API's 404, never the page.
    if (path === 'api' || path.startsWith('api/')) return reply.callNotFound();
    if (path.startsWith('assets/')) {
      if (!existsSync(indexFile)) return notBuilt(reply);
      // A missing asset is a 404 (never index.html: a browser would run HTML as a script).
      return reply.header('x-content-type-options', 'nosniff').sendFile(path, ASSET_CACHE);
    }
    return sendIndex(reply);
  });
}

function notBuilt(reply: FastifyReply) {
  return reply
    .code(503)
    .headers(PAGE_HEADERS)
    .header('cache-control', 'no-store')
    .header('retry-after', '10')
    .type('text/html; charset=utf-8')
    .send(NOT_BUILT_PAGE);
}
