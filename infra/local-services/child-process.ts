import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** A process this project started and therefore may stop. */
export interface OwnedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  stop(timeoutMs?: number): Promise<void>;
}

/** How to spawn a service process. */
export interface ServiceSpawnOptions {
  /**
   * Run the process in its own process group, so a Ctrl-C in the terminal reaches only the
   * parent, which then stops its children in order (the local stack does this).
   */
  readonly detached?: boolean;
}

/**
 * Spawns `command` and resolves once a line of its output matches `ready`, with that match.
 * Rejects (and kills the process) when it exits first or `timeoutMs` passes.
 */
export async function spawnUntilReady(
  name: string,
  command: string,
  args: readonly string[],
  ready: RegExp,
  timeoutMs = 20_000,
  options: ServiceSpawnOptions = {},
): Promise<{ process: OwnedProcess; match: RegExpMatchArray }> {
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const owned = ownProcess(name, child);
  let output = '';
  try {
    const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name} was not ready after ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onData = (data: Buffer) => {
        output = (output + data.toString('utf8')).slice(-8_192);
        const match = output.match(ready);
        if (match) {
          clearTimeout(timer);
          resolve(match);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`${name} could not start (${command}): ${err.message}`));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal}):\n${output}`));
      });
    });
    // Keep draining output so a chatty child never blocks on a full pipe.
    child.stdout?.resume();
    child.stderr?.resume();
    return { process: owned, match };
  } catch (err) {
    await owned.stop();
    throw err;
  }
}

function ownProcess(name: string, child: ChildProcess): OwnedProcess {
  return {
    name,
    child,
    async stop(timeoutMs = 5_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
