/**
 * A results file is rewritten by every run; its hand-written analysis, between the markers below,
 * is carried over from the file being replaced, so a rerun refreshes the numbers, not the reading.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const START = '<!-- ANALYSIS:START (hand-written; kept when the bench rewrites this file) -->';
const END = '<!-- ANALYSIS:END -->';
const PLACEHOLDER = '\n\n## Analysis\n\nTo be written after a full run.\n\n';

/** Writes `generated` to `file`, followed by the analysis of the file it replaces (or a placeholder). */
export function writeKeepingAnalysis(file: string, generated: string): void {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = previous.indexOf(START);
  const end = previous.indexOf(END, start);
  const kept =
    start >= 0 && end > start ? previous.slice(start, end + END.length) : `${START}${PLACEHOLDER}${END}`;
  writeFileSync(file, `${generated.trimEnd()}\n\n${kept}\n`);
}
