/**
 * A results file is rewritten by every run; some blocks of it, between markers, are carried over
 * from the file being replaced: the hand-written analysis, and in bench/RESULTS.md the media
 * summary that `bench/media-bench.ts` writes there (it runs after the chat phases).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

interface KeptBlock {
  readonly start: string;
  readonly end: string;
  /** Written when the previous file had no such block (null: none). */
  readonly placeholder: string | null;
}

export const MEDIA_BLOCK: KeptBlock = {
  start:
    '<!-- MEDIA:START (written by bench/media-bench.ts; kept when the chat bench rewrites this file) -->',
  end: '<!-- MEDIA:END -->',
  placeholder: null,
};

const ANALYSIS_BLOCK: KeptBlock = {
  start: '<!-- ANALYSIS:START (hand-written; kept when the bench rewrites this file) -->',
  end: '<!-- ANALYSIS:END -->',
  placeholder:
    '\n\n## Analysis\n\nTo be written after the first full run on the SQLite store (the lead engineer writes it).\n\n',
};

/** In file order: a media summary, then the analysis. */
const KEPT: readonly KeptBlock[] = [MEDIA_BLOCK, ANALYSIS_BLOCK];

function blockOf(text: string, block: KeptBlock): string | null {
  const start = text.indexOf(block.start);
  const end = text.indexOf(block.end, start);
  return start >= 0 && end > start ? text.slice(start, end + block.end.length) : null;
}

/** Writes `generated` to `file`, followed by the kept blocks of the file it replaces. */
export function writeKeepingAnalysis(file: string, generated: string): void {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const kept = KEPT.flatMap((block) => {
    const found = blockOf(previous, block);
    if (found !== null) return [found];
    return block.placeholder === null ? [] : [`${block.start}${block.placeholder}${block.end}`];
  });
  writeFileSync(file, `${[generated.trimEnd(), ...kept].join('\n\n')}\n`);
}

/** Replaces (or adds, before the analysis) the media block of `file` with `content`. */
export function writeMediaBlock(file: string, content: string): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const block = `${MEDIA_BLOCK.start}\n\n${content.trim()}\n\n${MEDIA_BLOCK.end}`;
  const current = blockOf(text, MEDIA_BLOCK);
  if (current !== null) {
    writeFileSync(
      file,
      text.replace(current, () => block),
    );
    return;
  }
  const analysis = text.indexOf(ANALYSIS_BLOCK.start);
  const next =
    analysis >= 0
      ? `${text.slice(0, analysis)}${block}\n\n${text.slice(analysis)}`
      : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}
