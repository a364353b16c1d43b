import type { AddressInfo } from 'node:net';
import { buildTestApp, type TestApp, type TestAppOptions } from './test-app.ts';

export interface ListeningApp extends TestApp {
  /** `http://127.0.0.1:<port>`, for real HTTP clients such as the OpenAI SDK. */
  readonly origin: string;
}

/** The test app listening on 127.0.0.1 and a free port, for clients that need a socket. */
export async function startListeningApp(options: TestAppOptions = {}): Promise<ListeningApp> {
  const t = await buildTestApp(options);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  return { ...t, origin: `http://127.0.0.1:${port}` };
}
