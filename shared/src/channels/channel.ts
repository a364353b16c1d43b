/**
 * A channel: one upstream credential of one provider, with how routing weighs it. The record the
 * channel store keeps (`StoredChannel`, credential sealed) and the one every process routes on
 * (`LiveChannel`, credential opened in memory only) are kept apart so a plaintext key can never be
 * written or answered by mistake.
 */

/** Where a channel comes from: made through the operator API, or a `<PROVIDER>_API_KEY` variable. */
export type ChannelSource = 'api' | 'environment';

/**
 * What the operator and the router see of a channel's health:
 * - `healthy`: routable;
 * - `cooling_down`: its breaker is open until `cooldown_until` (then one probe is let through);
 * - `auto_disabled`: the provider refused its credential; off until edited or its test passes;
 * - `disabled`: `enabled: false`, set by the operator.
 */
export type ChannelStatus = 'healthy' | 'cooling_down' | 'auto_disabled' | 'disabled';

/** A credential sealed with AES-256-GCM under one of the channel secret keys. */
export interface SealedSecret {
  /** Which key sealed it: a short fingerprint of the key, never the key. */
  readonly keyId: string;
  /** base64 of iv (12 bytes) ‖ ciphertext ‖ tag (16 bytes). */
  readonly sealed: string;
}

/** A channel as the store holds it. */
export interface StoredChannel {
  readonly id: string;
  readonly provider: string;
  readonly name: string;
  /** Null: the provider's official URL (resolved when routing). */
  readonly baseUrl: string | null;
  readonly secret: SealedSecret;
  /** The credential's last four characters, the only part ever shown again. */
  readonly keyLast4: string;
  readonly weight: number;
  readonly priority: number;
  /** Catalogue model ids it may serve; null = every model of its provider. */
  readonly models: readonly string[] | null;
  readonly enabled: boolean;
  /** Set when the provider refused the credential; cleared by an edit or a passing test. */
  readonly autoDisabledReason: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A channel to store: every stored field but those the store sets (refusal, times). */
export type NewChannel = Omit<StoredChannel, 'autoDisabledReason' | 'createdAt' | 'updatedAt'>;

/** The fields an edit may change; absent = unchanged. */
export interface ChannelChanges {
  readonly provider?: string;
  readonly name?: string;
  readonly baseUrl?: string | null;
  readonly secret?: SealedSecret;
  readonly keyLast4?: string;
  readonly weight?: number;
  readonly priority?: number;
  readonly models?: readonly string[] | null;
  readonly enabled?: boolean;
  readonly autoDisabledReason?: string | null;
}

/** A channel every process routes on: the stored fields with its credential opened, plus its source. */
export interface LiveChannel {
  readonly id: string;
  readonly provider: string;
  readonly name: string;
  /** Resolved: the channel's own URL or the provider's official one. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly keyLast4: string;
  readonly weight: number;
  readonly priority: number;
  readonly models: ReadonlySet<string> | null;
  readonly enabled: boolean;
  readonly autoDisabledReason: string | null;
  readonly source: ChannelSource;
}
