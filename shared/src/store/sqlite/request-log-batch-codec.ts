import type { RequestOutcome, RequestRecord } from '../../request-log/request-record.ts';

/**
 * A batch of records on its way to the write thread (./request-log-write-thread.ts), packed so its
 * copy is cheap: every field but the id is a number of one typed array (transferred, not copied),
 * and each text field (account, key, path, model, ip, …) is the number of a string sent once, the
 * first time it appears, in `added`. Packing and handing a batch over costs the event loop about
 * 1 µs a record (bench/REQUEST-LOG.md, "Write cost"), where a structured copy of the records cost
 * it about 2.5 µs, and the thread as much again to rebuild them.
 */
export interface PackedBatch {
  readonly ids: readonly string[];
  /**
   * `FIELDS` numbers a record, in that order; text fields are dictionary numbers, -1 for null
   * (`ttftMs` too: a time is never negative).
   */
  readonly numbers: Float64Array;
  /** Each record's charge in µIRT (the SQLite column is a 64-bit integer). */
  readonly costs: BigInt64Array;
  /** Strings new to the dictionary, numbered from its size before this batch. */
  readonly added: readonly string[];
  /** The dictionary was emptied before this batch (it had reached its bound). */
  readonly reset: boolean;
}

/** The numeric fields of a packed record, in their order (`id` and `costMicros` travel apart). */
const FIELDS = [
  'createdMs',
  'accountId',
  'keyId',
  'keyLast4',
  'method',
  'path',
  'endpoint',
  'model',
  'provider',
  'channelId',
  'attempts',
  'status',
  'errorCode',
  'outcome',
  'stream',
  'inputTokens',
  'outputTokens',
  'cachedTokens',
  'reasoningTokens',
  'latencyMs',
  'ttftMs',
  'ip',
  'jobId',
] as const;
const WIDTH = FIELDS.length;
const NULL = -1;
const orNull = (number: number): number | null => (number === NULL ? null : number);
/** A BigInt64Array wraps what it cannot hold: a charge past a 64-bit column is refused instead. */
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * Strings the dictionary holds before it starts again (ips and video job ids are many; accounts,
 * keys, paths and models few): a bound on both threads' memory, a reset costing one batch a resend.
 */
export const DICTIONARY_BOUND = 100_000;

/** The event loop's side: packs batches, numbering the strings it has sent before. */
export class RequestBatchPacker {
  readonly #bound: number;
  #numbers = new Map<string, number>();
  /** A pack threw after numbering strings the thread never got: the next batch starts again. */
  #stale = false;

  constructor(bound = DICTIONARY_BOUND) {
    this.#bound = bound;
  }

  /** Throws (RangeError, TypeError) for a record it cannot pack; the batch is then not sent. */
  pack(records: readonly RequestRecord[]): { batch: PackedBatch; transfer: ArrayBuffer[] } {
    try {
      return this.#pack(records);
    } catch (err) {
      this.#stale = true;
      throw err;
    }
  }

  #pack(records: readonly RequestRecord[]): { batch: PackedBatch; transfer: ArrayBuffer[] } {
    const reset = this.#stale || this.#numbers.size >= this.#bound;
    this.#stale = false;
    if (reset) this.#numbers = new Map();
    const known = this.#numbers;
    const added: string[] = [];
    const text = (value: string | null | undefined): number => {
      if (value == null) return NULL;
      let number = known.get(value);
      if (number === undefined) {
        number = known.size;
        known.set(value, number);
        added.push(value);
      }
      return number;
    };
    const ids = new Array<string>(records.length);
    const numbers = new Float64Array(records.length * WIDTH);
    const costs = new BigInt64Array(records.length);
    let at = 0;
    for (let i = 0; i < records.length; i += 1) {
      const r = records[i] as RequestRecord;
      ids[i] = r.id;
      const cost = r.costMicros;
      if (cost > INT64_MAX || cost < INT64_MIN)
        throw new RangeError(`a request's charge of ${cost} µIRT does not fit the log's 64-bit column`);
      costs[i] = cost;
      numbers[at++] = r.createdMs;
      numbers[at++] = text(r.accountId);
      numbers[at++] = text(r.keyId);
      numbers[at++] = text(r.keyLast4);
      numbers[at++] = text(r.method);
      numbers[at++] = text(r.path);
      numbers[at++] = text(r.endpoint);
      numbers[at++] = text(r.model);
      numbers[at++] = text(r.provider);
      numbers[at++] = text(r.channelId);
      numbers[at++] = r.attempts;
      numbers[at++] = r.status;
      numbers[at++] = text(r.errorCode);
      numbers[at++] = text(r.outcome);
      numbers[at++] = r.stream ? 1 : 0;
      numbers[at++] = r.inputTokens;
      numbers[at++] = r.outputTokens;
      numbers[at++] = r.cachedTokens;
      numbers[at++] = r.reasoningTokens;
      numbers[at++] = r.latencyMs;
      numbers[at++] = r.ttftMs ?? NULL;
      numbers[at++] = text(r.ip);
      numbers[at++] = text(r.jobId);
    }
    return {
      batch: { ids, numbers, costs, added, reset },
      transfer: [numbers.buffer as ArrayBuffer, costs.buffer as ArrayBuffer],
    };
  }
}

/**
 * The write thread's side: rebuilds the records of each batch, in the order they were packed
 * (a port delivers messages in order, so both dictionaries stay the same).
 */
export class RequestBatchUnpacker {
  #strings: string[] = [];

  unpack(batch: PackedBatch): RequestRecord[] {
    if (batch.reset) this.#strings = [];
    const strings = this.#strings;
    for (const value of batch.added) strings.push(value);
    const text = (number: number): string | null => (number === NULL ? null : (strings[number] as string));
    const { ids, numbers, costs } = batch;
    const records = new Array<RequestRecord>(ids.length);
    let at = 0;
    // In `pack`'s order, field by field (an object literal's values are read in source order).
    for (let i = 0; i < ids.length; i += 1) {
      records[i] = {
        id: ids[i] as string,
        createdMs: numbers[at++] as number,
        accountId: text(numbers[at++] as number) as string,
        keyId: text(numbers[at++] as number) as string,
        keyLast4: text(numbers[at++] as number) as string,
        method: text(numbers[at++] as number) as string,
        path: text(numbers[at++] as number) as string,
        endpoint: text(numbers[at++] as number) as string,
        model: text(numbers[at++] as number),
        provider: text(numbers[at++] as number),
        channelId: text(numbers[at++] as number),
        attempts: numbers[at++] as number,
        status: numbers[at++] as number,
        errorCode: text(numbers[at++] as number),
        outcome: text(numbers[at++] as number) as RequestOutcome,
        stream: numbers[at++] === 1,
        inputTokens: numbers[at++] as number,
        outputTokens: numbers[at++] as number,
        cachedTokens: numbers[at++] as number,
        reasoningTokens: numbers[at++] as number,
        latencyMs: numbers[at++] as number,
        ttftMs: orNull(numbers[at++] as number),
        ip: text(numbers[at++] as number),
        jobId: text(numbers[at++] as number),
        costMicros: costs[i] as bigint,
      };
    }
    return records;
  }
}
