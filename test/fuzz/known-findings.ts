/**
 * Findings of the fuzz suite that are reported but not fixed yet in the product. `npm run fuzz`
 * still counts them as failures (its report tags each counterexample with the finding it is);
 * the short test in `npm test` counts and prints them without failing, so it guards everything
 * else meanwhile. When a fix lands, delete its entry: the short test then guards the fix too.
 */
import type { Violation } from './check.ts';
import type { FuzzRequest } from './requests.ts';
import type { Outcome, Wire } from './send.ts';

export interface KnownFinding {
  readonly id: string;
  /** What happens and where in the code it comes from. */
  readonly summary: string;
  matches(request: FuzzRequest, wire: Wire, outcome: Outcome, violation: Violation): boolean;
}

/**
 * None open. Fixed, and guarded since by the fuzz test: a CONNECT dropped without an answer; a
 * head that never completes held for a minute; Node's bare 417 for an unknown `Expect`; a body
 * on a HEAD's parser-level error; a bare 416; early answers lost to a reset while the client was
 * still sending (client-errors.ts, lingering-close.ts, send-video-content.ts).
 */
export const KNOWN_FINDINGS: readonly KnownFinding[] = [];

/** The known finding a violation is, if any. */
export function knownFindingOf(
  known: readonly KnownFinding[],
  request: FuzzRequest,
  wire: Wire,
  outcome: Outcome,
  violation: Violation,
): KnownFinding | undefined {
  return known.find((f) => f.matches(request, wire, outcome, violation));
}
