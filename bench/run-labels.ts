/** What a results file says of the run that wrote it: the machine, the tree measured, the command. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** CPUs, memory, kernel and Node of this machine. */
export function machineLabel(): string {
  const cpus = os.cpus();
  const memory = `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM`;
  return `${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${memory}, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** `command` preceded by the knobs of the environment it ran with (names matching `knobs`). */
export function commandLabel(command: string, knobs: RegExp): string {
  const set = Object.entries(process.env).flatMap(([name, value]) =>
    knobs.test(name) ? [`${name}=${value}`] : [],
  );
  return [...set, command].join(' ');
}

/**
 * The commit a bench measures, and how many tracked files of the work tree at `root` differ from
 * it outside `bench/` (the bench's own results and scripts do not change what is measured);
 * `unknown` outside a git checkout.
 */
export function workTreeLabel(root: string): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root }).toString();
    const head = git('rev-parse', '--short', 'HEAD').trim();
    const changed = git('status', '--porcelain', '--untracked-files=no')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.slice(3).startsWith('bench/')).length;
    return changed === 0 ? head : `${head} + ${changed} uncommitted changed files outside bench/`;
  } catch {
    return 'unknown';
  }
}
