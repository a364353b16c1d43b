/**
 * A video's hold is not a lease: the api answers 202 at once and the job owns the hold, which lives
 * until the render's deadline plus this margin (a fixed life). The worker settles it when it charges
 * the video and releases it when the job fails; the reconciler fails every video still unfinished
 * past its deadline and releases its hold (docs/media.md, "Reconciliation").
 */
export const VIDEO_HOLD_MARGIN_MS = 10 * 60 * 1000;
