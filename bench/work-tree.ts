import { execFileSync } from 'node:child_process';

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
