#!/usr/bin/env node
// The npm registry mirror of these machines serves only the Linux builds of platform-specific
// packages (biome's CLI, msgpackr-extract, ...). `npm install` then leaves the other platforms'
// optional packages out of package-lock.json, and `npm ci` refuses the lock as out of sync.
// This adds those optional entries back (name and version, as npm itself would record them), so
// `npm ci` works here and on every other platform. Run it after any change of dependencies:
//   npm install && npm run lockfile:complete
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
const added = [];
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key] !== undefined || !/^\d+\.\d+\.\d+$/.test(version)) continue;
    packages[key] = { version, optional: true, ...(entry.dev ? { dev: true } : {}) };
    added.push(`${key}@${version} (optional dependency of ${location || 'the project'})`);
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(path, `${JSON.stringify({ ...lock, packages: sorted }, null, 2)}\n`);
console.log(added.length === 0 ? 'package-lock.json is complete' : `added:\n  ${added.join('\n  ')}`);
