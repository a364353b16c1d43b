/**
 * A full garbage collection in another Node process, through its inspector (started with
 * `--inspect=127.0.0.1:<port>`): the Chrome DevTools Protocol's `HeapProfiler.collectGarbage`
 * over the inspector's WebSocket. The fuzz run uses it before each RSS sample it judges, so that
 * memory a leak holds is told from garbage an idle process has not collected yet.
 */
export async function collectGarbage(inspectorPort: number): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${inspectorPort}`);
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`cannot open ${url}`)), { once: true });
  });
  try {
    // Twice: the first collection can free what only the second one can then reclaim.
    for (const id of [1, 2]) {
      await new Promise<void>((resolve) => {
        const onMessage = (event: MessageEvent) => {
          if ((JSON.parse(String(event.data)) as { id?: number }).id !== id) return;
          socket.removeEventListener('message', onMessage);
          resolve();
        };
        socket.addEventListener('message', onMessage);
        socket.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
      });
    }
  } finally {
    socket.close();
  }
}
