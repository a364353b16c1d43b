import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { StackResource } from './resources.ts';
import { StackError } from './stack-log.ts';

/**
 * Wraps a child process the stack spawned as a resource: stop sends SIGTERM, then SIGKILL after
 * the timeout. Only this pid is ever signalled, never a process the stack did not spawn.
 */
export function childResource(name: string, role: StackResource['role'], child: ChildProcess): StackResource {
  return {
    name,
    role,
    async stop(timeoutMs) {
      if (hasExited(child)) return describeExit(child);
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      let forced = false;
      const timer = setTimeout(() => {
        forced = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      await exited;
      clearTimeout(timer);
      return forced ? `killed after ${timeoutMs} ms` : describeExit(child);
    },
    killNow() {
      if (!hasExited(child)) child.kill('SIGKILL');
    },
  };
}

/**
 * Calls `onUnexpectedExit` with a StackError naming the child when it exits; the caller decides
 * whether the exit was expected (the stack is stopping) or not.
 */
export function watchExit(name: string, child: ChildProcess, onExit: (reason: StackError) => void): void {
  const report = () => onExit(new StackError(`${name} exited unexpectedly (${describeExit(child)})`));
  if (hasExited(child)) report();
  else child.once('exit', report);
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function describeExit(child: ChildProcess): string {
  return child.signalCode !== null ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`;
}
