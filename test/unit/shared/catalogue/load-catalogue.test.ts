import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CatalogueError, loadCatalogue, usdToIrt } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { modelAt, validDocument } from './catalogue-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'catalogue-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeCatalogue(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function errorOf(action: () => unknown): CatalogueError {
  try {
    action();
  } catch (err) {
    if (err instanceof CatalogueError) return err;
    throw err;
  }
  throw new Error('expected a CatalogueError');
}

describe('loadCatalogue', () => {
  it('loads a catalogue from a given path', () => {
    const path = writeCatalogue('valid.json', JSON.stringify(validDocument()));
    expect(
      loadCatalogue(path)
        .list()
        .map((m) => m.id),
    ).toEqual(['openai/gpt-4o', 'groq/openai/gpt-oss-120b', 'openai/dall-e-3']);
  });

  it('rejects malformed JSON, naming the file', () => {
    const path = writeCatalogue('broken.json', '{ "version": 1, "models": [ }');
    const err = errorOf(() => loadCatalogue(path));
    expect(err.name).toBe('CatalogueError');
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toContain(`${path} is not valid JSON`);
    expect(err.message).toContain(path);
  });

  it('rejects a missing file, naming it', () => {
    const path = join(dir, 'missing.json');
    expect(errorOf(() => loadCatalogue(path)).problems[0]).toMatch(
      new RegExp(`^cannot read ${path}: .*ENOENT`),
    );
  });

  it('names the file and every problem in the message', () => {
    const doc = validDocument();
    delete modelAt(doc, 0).name;
    modelAt(doc, 1).capabilities = ['telepathy'];
    const path = writeCatalogue('invalid.json', JSON.stringify(doc));
    const err = errorOf(() => loadCatalogue(path));
    expect(err).toBeInstanceOf(Error);
    expect(err.problems).toHaveLength(2);
    expect(err.message).toContain(`Invalid model catalogue ${path}:`);
    for (const problem of err.problems) expect(err.message).toContain(problem);
  });
});

describe('usdToIrt', () => {
  it('multiplies and rounds half up to 2 decimals in exact decimal arithmetic', () => {
    // 0.000075 x 105000 is 7.875; float rounding (Math.round or toFixed) gives 7.87.
    expect(Math.round(0.000075 * 105000 * 100) / 100).toBe(7.87);
    expect(usdToIrt(0.000075, 105000)).toBe(7.88);
    expect(usdToIrt(0.000667, 105000)).toBe(70.04);
    expect(usdToIrt(0.00185, 105000)).toBe(194.25);
    expect(usdToIrt(2.5, 105000)).toBe(262500);
    expect(usdToIrt(0.1, 3)).toBe(0.3);
    expect(usdToIrt(0.125, 105000.5)).toBe(13125.06);
    expect(usdToIrt(0.0000001, 105000)).toBe(0.01);
    expect(usdToIrt(0.00000001, 105000)).toBe(0);
    expect(usdToIrt(0, 105000)).toBe(0);
  });
});
