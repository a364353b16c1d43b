import type { DemoAccount } from './seed-demo.ts';

/**
 * Prints what the user needs once the stack is ready. The line starting exactly with
 * `Gateway ready at ` followed by the base URL is also what scripts and tests wait for.
 */
export function printBanner(origin: string, demo: DemoAccount | undefined): void {
  const baseUrl = `${origin}/v1`;
  const rule = '='.repeat(72);
  const lines = [
    '',
    rule,
    `Gateway ready at ${baseUrl}`,
    `  models:   curl ${baseUrl}/models`,
    `  health:   curl ${origin}/readyz`,
    ...(demo === undefined ? [] : [`  demo key: ${demo.key}`, `  try:      ${demo.curl}`]),
    '  stop:     Ctrl-C (stops everything this stack started)',
    rule,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
