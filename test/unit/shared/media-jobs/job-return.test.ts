import { describe, expect, it } from 'vitest';
import {
  completedReturn,
  MAX_RETURNED_RESULT_CHARS,
  resultOfReturn,
} from '../../../../shared/src/media-jobs/job-return.ts';
import type { MediaJobResult } from '../../../../shared/src/media-jobs/media-job.ts';

const image: MediaJobResult = {
  kind: 'image',
  images: [{ key: 'jobs/img_1/image-0.png', revisedPrompt: null }],
};

describe('media job return values', () => {
  it('a small result travels with the completion and is read back for its own kind only', () => {
    const returned = completedReturn(image);
    expect(returned).toEqual({ status: 'completed', result: image });
    const overTheWire = JSON.parse(JSON.stringify(returned));
    expect(resultOfReturn(overTheWire, 'image')).toEqual(image);
    expect(resultOfReturn(overTheWire, 'speech')).toBeNull();
  });

  it('a large result stays in the job document', () => {
    const text = 'x'.repeat(MAX_RETURNED_RESULT_CHARS);
    const transcription: MediaJobResult = {
      kind: 'transcription',
      text,
      language: null,
      duration: 1,
      words: [],
    };
    expect(completedReturn(transcription)).toEqual({ status: 'completed' });
  });

  it('anything else carries no result', () => {
    for (const value of [undefined, null, 'completed', 42, { status: 'discarded' }, { status: 'completed' }])
      expect(resultOfReturn(value, 'image')).toBeNull();
    expect(resultOfReturn({ status: 'completed', result: 'jobs/x' }, 'image')).toBeNull();
    expect(resultOfReturn({ status: 'failed', result: image }, 'image')).toBeNull();
  });
});
