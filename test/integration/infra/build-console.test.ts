import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  consolePaths,
  ensureConsoleBuilt,
  isConsoleBuildFresh,
} from '../../../infra/local-stack/build-console.ts';

/** A repository root with a console source file and, optionally, a build of it. */
function fakeRepo(): string {
  const root = mkdtempSync(join(tmpdir(), 'console-repo-'));
  mkdirSync(join(root, 'api', 'console', 'src'), { recursive: true });
  writeFileSync(join(root, 'api', 'console', 'src', 'main.tsx'), 'export {};');
  return root;
}

function setTime(path: string, secondsAgo: number): void {
  const when = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(path, when, when);
}

describe('building the web console on start', () => {
  let root: string;
  beforeEach(() => {
    root = fakeRepo();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is stale without a build, fresh when the build is newer than every source, stale again after an edit', () => {
    const paths = consolePaths(root);
    expect(isConsoleBuildFresh(root)).toBe(false);
    mkdirSync(paths.distDir);
    writeFileSync(paths.indexFile, '<!doctype html>');
    setTime(join(paths.consoleDir, 'src', 'main.tsx'), 60);
    setTime(paths.indexFile, 30);
    expect(isConsoleBuildFresh(root)).toBe(true);
    setTime(join(paths.consoleDir, 'src', 'main.tsx'), 0);
    expect(isConsoleBuildFresh(root)).toBe(false);
  });

  it('counts a dependency change (package-lock.json) as a source change', () => {
    const paths = consolePaths(root);
    mkdirSync(paths.distDir);
    writeFileSync(paths.indexFile, '<!doctype html>');
    setTime(join(paths.consoleDir, 'src', 'main.tsx'), 60);
    setTime(paths.indexFile, 30);
    writeFileSync(paths.lockfile, '{}');
    expect(isConsoleBuildFresh(root)).toBe(false);
  });

  it('does nothing when the build is up to date', async () => {
    const paths = consolePaths(root);
    mkdirSync(paths.distDir);
    writeFileSync(paths.indexFile, '<!doctype html>');
    setTime(join(paths.consoleDir, 'src', 'main.tsx'), 60);
    await expect(ensureConsoleBuilt({ repoRoot: root })).resolves.toBe('up-to-date');
  });

  it('says how to fix a missing vite, and leaves no lock behind', async () => {
    await expect(ensureConsoleBuilt({ repoRoot: root })).rejects.toThrow(/vite is not installed/);
    expect(existsSync(consolePaths(root).lockDir)).toBe(false);
  });

  it('takes over a lock whose process died', async () => {
    const paths = consolePaths(root);
    mkdirSync(paths.lockDir);
    // No process has pid 2^22 + 1 here (above Linux's default pid_max).
    writeFileSync(join(paths.lockDir, 'pid'), String(4_194_305));
    await expect(ensureConsoleBuilt({ repoRoot: root, lockWaitMs: 2_000 })).rejects.toThrow(
      /vite is not installed/,
    );
    expect(existsSync(paths.lockDir)).toBe(false);
  });
});
