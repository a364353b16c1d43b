import type { DemoAccount } from './seed-demo.ts';

/**
 * Prints what the user needs once the stack is ready. The line starting exactly with
 * `Gateway ready at ` followed by the base URL is also what scripts and tests wait for.
 */
export function printBanner(origin: string, demo: DemoAccount | undefined, simulated: boolean): void {
  const baseUrl = `${origin}/v1`;
  const rule = '='.repeat(72);
  const lines = [
    '',
    rule,
    `Gateway ready at ${baseUrl}`,
    `  models:   curl ${baseUrl}/models`,
    `  health:   curl ${origin}/readyz`,
    ...(simulated
      ? [
          '  note:     providers without an API key (<PROVIDER>_API_KEY) are simulated offline by the demo provider',
        ]
      : []),
    ...(demo === undefined ? [] : demoLines(origin, demo)),
    '  stop:     Ctrl-C (stops everything this stack started)',
    rule,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function demoLines(origin: string, demo: DemoAccount): string[] {
  const link =
    demo.consoleLink.purpose === 'invite'
      ? `  invite:   ${demo.consoleLink.url}  (sets its password; works once, for 7 days)`
      : `  reset:    ${demo.consoleLink.url}  (password reset link: the account has a password; works once, for 1 hour)`;
  return [
    `  demo key: ${demo.key}`,
    `  try:      ${demo.curl}`,
    `  console:  ${origin}/console  (sign in as ${demo.email})`,
    link,
  ];
}
