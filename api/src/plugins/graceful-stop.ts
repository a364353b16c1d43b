import { setMaxListeners } from 'node:events';
import type { FastifyInstance } from 'fastify';

/** After the stop, how long answers have to end before the connections still open are cut. */
const CUT_AFTER_STOP_MS = 1_000;
/** While closing, how often connections that became idle are closed. */
const IDLE_SWEEP_MS = 100;

/**
 * The api's graceful stop (docs/reliability.md, "Stopping"). `app.close()` takes no new request
 * (the request gate answers 503) and waits for those in flight. They run on for `graceMs` as they
 * would; then `app.stopping` aborts: an open stream ends in its protocol's error event (and
 * `[DONE]` on `/v1`), a request waiting for its media job or for a whole upstream answer is
 * answered 503 with `Retry-After` (the error handler), and nothing is charged for any of them.
 * A connection still open `CUT_AFTER_STOP_MS` later is cut, so the close ends within its budget.
 */
export function registerGracefulStop(app: FastifyInstance, options: { readonly graceMs: number }): void {
  const controller = new AbortController();
  // Every request in flight listens to it (answer-signal.ts) until it ends: no leak to warn about.
  setMaxListeners(0, controller.signal);
  app.decorate('stopping', controller.signal);
  const timers: NodeJS.Timeout[] = [];
  app.addHook('preClose', (done) => {
    const stop = () => controller.abort(new DOMException('The service is stopping.', 'AbortError'));
    timers.push(
      setTimeout(stop, options.graceMs),
      setTimeout(() => app.server.closeAllConnections(), options.graceMs + CUT_AFTER_STOP_MS),
      // A keep-alive connection whose answer ended after the close began would hold the close
      // until its idle timeout: each one is closed as soon as it is idle.
      setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS),
    );
    for (const timer of timers) timer.unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    for (const timer of timers) clearTimeout(timer);
    done();
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Aborted when the api stops (`registerGracefulStop`): what is still open is ended. */
    readonly stopping: AbortSignal;
  }
}
