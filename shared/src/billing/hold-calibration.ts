/**
 * What the answers of each model have actually used, so that a request that states no output bound
 * is held at about what such a request costs instead of a fixed allowance (docs/money-core.md,
 * "Hold sizing"). For each model and estimate basis the last answers are remembered as samples of
 * (the admission's byte-based input estimate, the input tokens the provider counted over it and
 * the share of them read from its cache, the output tokens of one choice). A request is estimated from its nearest neighbours: the samples
 * whose input estimate was the same as its own (a client repeating a prompt template), else those
 * of about its size (within a factor of two or so), else all of the model's; the 90th percentile of
 * their input ratios and of their outputs. So requests of another size, or the model's other
 * traffic, skew the estimate of a request only when nothing closer was seen.
 *
 * Where no such sample exists, all of the model's samples serve, then those of every model; with
 * none at all the estimate stays the byte heuristic with the default allowance. The figures live in
 * the process (each replica learns from what it serves), cost no I/O, and are bounded in memory by
 * the catalogue (one small ring per model and basis seen).
 */

/** Answers remembered per model and basis (and for the all-models prior); older ones are forgotten. */
export const CALIBRATION_WINDOW = 64;

/** The percentile of the remembered answers an estimate takes (nearest rank). */
export const CALIBRATION_PERCENTILE = 0.9;

/** Bounds of the input ratio: the byte heuristic is never trusted to be off by more than this. */
const MIN_INPUT_RATIO = 1 / 16;
const MAX_INPUT_RATIO = 4;

/** Which byte heuristic an input estimate came from (their ratios to the truth differ). */
export type EstimateBasis = 'chat' | 'native';

/** What a hold was computed from, kept with the request so its answer can refine the next ones. */
export interface HoldBasis {
  readonly model: string;
  readonly basis: EstimateBasis;
  /** The input tokens the byte heuristic gave, before calibration (at least 1). */
  readonly estimatedInputTokens: number;
  /** Choices the request asked for (`n`, Gemini's `candidateCount`): output is per choice. */
  readonly choices: number;
}

/** What an answer used, as its settlement records it. */
export interface ObservedUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Of `inputTokens`, those read from the provider's cache (billed at its cached price). */
  readonly cachedInputTokens?: number;
}

/** What an estimate of a request takes from the answers seen. */
export interface CalibratedFigures {
  /** Factor applied to the byte heuristic's input tokens (1 with no answer seen). */
  readonly inputRatio: number;
  /** Output tokens of one choice; undefined with no answer seen. */
  readonly outputTokens: number | undefined;
  /**
   * The share of the input the provider read from its cache (0 to 1; 0 with no answer seen): the
   * 10th percentile, so that the estimate leans to the dearer, uncached side as the others do.
   */
  readonly cachedShare: number;
  /** True when the figures come from requests whose input estimate was exactly this one's. */
  readonly sameSize: boolean;
}

/** The calibrated figures an estimate uses. */
export interface Calibration {
  /** The figures for a request of `model` whose byte heuristic gave `estimatedInputTokens`. */
  figures(model: string, basis: EstimateBasis, estimatedInputTokens: number): CalibratedFigures;
}

const UNCALIBRATED: CalibratedFigures = {
  inputRatio: 1,
  outputTokens: undefined,
  cachedShare: 0,
  sameSize: false,
};

/** No history: the plain byte heuristic and the default allowance (tests, tools). */
export const NO_CALIBRATION: Calibration = { figures: () => UNCALIBRATED };

/** A request's size class: its input estimate's power of two. Neighbours are one class apart. */
const sizeClass = (estimatedInputTokens: number) => Math.floor(Math.log2(Math.max(1, estimatedInputTokens)));

/** The last samples of one model and basis, with their figures per size class cached until the next sample. */
class SampleRing {
  readonly #estimates = new Float64Array(CALIBRATION_WINDOW);
  readonly #classes = new Int32Array(CALIBRATION_WINDOW);
  readonly #ratios = new Float64Array(CALIBRATION_WINDOW);
  readonly #outputs = new Float64Array(CALIBRATION_WINDOW);
  readonly #cachedShares = new Float64Array(CALIBRATION_WINDOW);
  #size = 0;
  #next = 0;
  readonly #cache = new Map<number, CalibratedFigures>();

  add(estimatedInputTokens: number, ratio: number, output: number, cachedShare: number): void {
    this.#cachedShares[this.#next] = cachedShare;
    this.#estimates[this.#next] = estimatedInputTokens;
    this.#classes[this.#next] = sizeClass(estimatedInputTokens);
    this.#ratios[this.#next] = ratio;
    this.#outputs[this.#next] = output;
    this.#next = (this.#next + 1) % CALIBRATION_WINDOW;
    this.#size = Math.min(this.#size + 1, CALIBRATION_WINDOW);
    this.#cache.clear();
  }

  /** The figures of the samples nearest `estimatedInputTokens` (see above); undefined when empty. */
  figures(estimatedInputTokens: number): CalibratedFigures | undefined {
    if (this.#size === 0) return undefined;
    let figures = this.#cache.get(estimatedInputTokens);
    if (figures === undefined) {
      const size = sizeClass(estimatedInputTokens);
      figures =
        this.#percentiles((i) => this.#estimates[i] === estimatedInputTokens, true) ??
        this.#percentiles((i) => Math.abs((this.#classes[i] as number) - size) <= 1, false) ??
        (this.#percentiles(() => true, false) as CalibratedFigures);
      this.#cache.set(estimatedInputTokens, figures);
    }
    return figures;
  }

  #percentiles(near: (index: number) => boolean, sameSize: boolean): CalibratedFigures | undefined {
    const ratios: number[] = [];
    const outputs: number[] = [];
    const shares: number[] = [];
    for (let i = 0; i < this.#size; i += 1) {
      if (!near(i)) continue;
      ratios.push(this.#ratios[i] as number);
      outputs.push(this.#outputs[i] as number);
      shares.push(this.#cachedShares[i] as number);
    }
    if (ratios.length === 0) return undefined;
    return {
      inputRatio: percentile(ratios, CALIBRATION_PERCENTILE),
      outputTokens: percentile(outputs, CALIBRATION_PERCENTILE),
      cachedShare: percentile(shares, 1 - CALIBRATION_PERCENTILE),
      sameSize,
    };
  }
}

/** The nearest-rank percentile `p` of some numbers (sorted in place). */
function percentile(values: number[], p: number): number {
  values.sort((a, b) => a - b);
  return values[Math.max(0, Math.ceil(p * values.length) - 1)] as number;
}

/** The process's calibration, fed by every settled token answer. */
export class HoldCalibration implements Calibration {
  readonly #rings = new Map<string, SampleRing>();
  readonly #prior = new Map<EstimateBasis, SampleRing>();

  /** Learns from one answered request (its usage as charged). */
  observe(basis: HoldBasis, usage: ObservedUsage): void {
    const estimated = basis.estimatedInputTokens;
    if (!(estimated >= 1) || !(basis.choices >= 1)) return;
    const output = Math.max(0, Math.ceil(usage.outputTokens / basis.choices));
    const ratio = Math.min(MAX_INPUT_RATIO, Math.max(MIN_INPUT_RATIO, usage.inputTokens / estimated));
    const cached = usage.cachedInputTokens ?? 0;
    const share = usage.inputTokens > 0 ? Math.min(1, Math.max(0, cached / usage.inputTokens)) : 0;
    if (!Number.isFinite(output) || !Number.isFinite(ratio) || !Number.isFinite(share)) return;
    ringOf(this.#rings, ringKey(basis.model, basis.basis)).add(estimated, ratio, output, share);
    ringOf(this.#prior, basis.basis).add(estimated, ratio, output, share);
  }

  figures(model: string, basis: EstimateBasis, estimatedInputTokens: number): CalibratedFigures {
    return (
      this.#rings.get(ringKey(model, basis))?.figures(estimatedInputTokens) ??
      this.#prior.get(basis)?.figures(estimatedInputTokens) ??
      UNCALIBRATED
    );
  }
}

function ringOf<K>(rings: Map<K, SampleRing>, key: K): SampleRing {
  let ring = rings.get(key);
  if (ring === undefined) {
    ring = new SampleRing();
    rings.set(key, ring);
  }
  return ring;
}

const ringKey = (model: string, basis: EstimateBasis) => `${basis}\u0000${model}`;
