import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const source = (path: string) => readFileSync(new URL(`../../../api/src/${path}`, import.meta.url), 'utf8');

describe('the api process', () => {
  it('turns V8 allocation-site pretenuring off before it loads anything else', () => {
    const firstImport = /^import\s+(?:.+?\s+from\s+)?'([^']+)';/m.exec(source('main.ts'));
    expect(firstImport?.[1]).toBe('./gc-settings.ts');
    expect(source('gc-settings.ts')).toMatch(/setFlagsFromString\('--no-allocation-site-pretenuring'\)/);
  });
});
