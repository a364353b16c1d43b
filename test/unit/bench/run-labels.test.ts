import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { workTreeLabel } from '../../../bench/run-labels.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'work-tree-'));
  dirs.push(dir);
  return dir;
}

describe('workTreeLabel', () => {
  it('names the commit, and counts the changed tracked files outside bench/', () => {
    const root = scratch();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root }).toString().trim();
    git('init', '-q');
    mkdirSync(join(root, 'bench'));
    writeFileSync(join(root, 'a.ts'), 'a');
    writeFileSync(join(root, 'b.ts'), 'b');
    writeFileSync(join(root, 'bench', 'c.ts'), 'c');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one');
    const head = git('rev-parse', '--short', 'HEAD');
    expect(workTreeLabel(root)).toBe(head);
    writeFileSync(join(root, 'bench', 'c.ts'), 'changed');
    writeFileSync(join(root, 'untracked.ts'), 'new');
    expect(workTreeLabel(root)).toBe(head);
    writeFileSync(join(root, 'a.ts'), 'changed');
    writeFileSync(join(root, 'b.ts'), 'changed');
    expect(workTreeLabel(root)).toBe(`${head} + 2 uncommitted changed files outside bench/`);
  });

  it('says unknown outside a git checkout, and for a folder that is not there', () => {
    expect(workTreeLabel(scratch())).toBe('unknown');
    expect(workTreeLabel(join(scratch(), 'missing'))).toBe('unknown');
  });
});
