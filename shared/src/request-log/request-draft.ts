/**
 * What is learnt about a request while it runs, for its request log record (written when it
 * ends). Created once its key passed check 2; filled by admission, the upstream attempts, the
 * charge and the stream relay. Holds nothing of what was asked or answered.
 */
export interface RequestDraft {
  /** `performance.now()` when the draft was made (the key had passed check 2). */
  readonly startedAt: number;
  model: string | null;
  provider: string | null;
  /** The channel of the provider's attempt (set with `provider`); null on a route without one (the demo). */
  channelId: string | null;
  attempts: number;
  errorCode: string | null;
  /** A stream that broke off after its status (the relay's error event). */
  failedAfterStatus: boolean;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  costMicros: bigint;
  ttftMs: number | null;
  /** The media job the request started (a video): its record is completed when the render ends. */
  jobId: string | null;
}

export function newRequestDraft(startedAt = performance.now()): RequestDraft {
  return {
    startedAt,
    model: null,
    provider: null,
    channelId: null,
    attempts: 0,
    errorCode: null,
    failedAfterStatus: false,
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    reasoningTokens: 0,
    costMicros: 0n,
    ttftMs: null,
    jobId: null,
  };
}

/**
 * An upstream attempt is being made on `provider` through `channelId` (null: no channel): the
 * one place a record's provider and channel are set, the attempt counted.
 */
export function noteUpstreamAttempt(
  draft: RequestDraft,
  provider: string,
  channelId: string | null = null,
): void {
  draft.provider = provider;
  draft.channelId = channelId;
  draft.attempts += 1;
}

/** What a request was charged (the answer's `service.cost`) and the usage it was charged for. */
export interface DraftCharge {
  readonly model: string;
  readonly costMicros: bigint;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens?: number;
  readonly reasoningTokens?: number;
  /** The provider that served it, when the attempts were made elsewhere (a media job's worker). */
  readonly provider?: string | null;
}

export function noteCharge(draft: RequestDraft | undefined, charge: DraftCharge): void {
  if (draft === undefined) return;
  draft.model = charge.model;
  draft.costMicros = charge.costMicros;
  draft.inputTokens = charge.inputTokens;
  draft.outputTokens = charge.outputTokens;
  draft.cachedTokens = charge.cachedTokens ?? 0;
  draft.reasoningTokens = charge.reasoningTokens ?? 0;
  if (charge.provider != null && draft.provider === null) draft.provider = charge.provider;
}

/** A stream failed after its 200: its record keeps the status, with outcome `failed` and the code. */
export function noteFailedAfterStatus(draft: RequestDraft | undefined, code: string | number): void {
  if (draft === undefined) return;
  draft.failedAfterStatus = true;
  draft.errorCode = String(code);
}
