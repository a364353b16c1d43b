import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { childResource } from './child-resource.ts';
import { formatLogLine } from './log-format.ts';
import type { StackResource } from './resources.ts';

/** Width of the `name |` column in front of each child line, so the columns line up. */
const PREFIX_WIDTH = 6;

export interface AppProcess {
  readonly resource: StackResource;
  readonly child: ReturnType<typeof spawn>;
}

/**
 * Runs `node <entry>` (api or worker) with `env`, in its own process group so a Ctrl-C reaches
 * only the stack, which then stops it in order. Each output line goes to the stack's stdout,
 * prefixed with `name |`.
 */
export function spawnAppProcess(
  name: string,
  entry: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): AppProcess {
  const child = spawn(process.execPath, [entry], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  forwardLines(name, child.stdout);
  forwardLines(name, child.stderr);
  return { resource: childResource(name, 'app', child), child };
}

function forwardLines(name: string, stream: Readable | null): void {
  if (stream === null) return;
  const prefix = `${name.padEnd(PREFIX_WIDTH)} | `;
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    const text = formatLogLine(line).replaceAll('\n', `\n${prefix}`);
    process.stdout.write(`${prefix}${text}\n`);
  });
}
