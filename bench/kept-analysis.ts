/**
 * A results file is rewritten by every run; its hand-written analysis, between these markers, is
 * carried over from the file being replaced.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const ANALYSIS_START = '<!-- ANALYSIS:START (hand-written; kept when the bench rewrites this file) -->';
const ANALYSIS_END = '<!-- ANALYSIS:END -->';

/** Writes `generated` to `file`, followed by the analysis block of the file it replaces. */
export function writeKeepingAnalysis(file: string, generated: string): void {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = previous.indexOf(ANALYSIS_START);
  const end = previous.indexOf(ANALYSIS_END);
  const analysis =
    start >= 0 && end > start
      ? previous.slice(start, end + ANALYSIS_END.length)
      : `${ANALYSIS_START}\n\n## Analysis\n\n(to be written)\n\n${ANALYSIS_END}`;
  writeFileSync(file, `${generated.trimEnd()}\n\n${analysis}\n`);
}
