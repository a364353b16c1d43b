/** Shapes of the `/console/api` answers (docs/console.md). Amounts are Toman numbers. */

export type Role = 'holder' | 'operator';

export interface Account {
  readonly id: string;
  readonly email: string;
  readonly name: string | null;
  readonly status: 'active' | 'inactive';
  readonly balance?: number;
  readonly created_at?: string;
}

/** The billing zone (`BILLING_TIME_ZONE`) and the day it is there, as the session answer tells it. */
export interface BillingCalendar {
  readonly time_zone: string;
  readonly today: string;
}

export interface Session {
  readonly role: Role;
  readonly account?: Account;
  readonly csrf_token: string;
  readonly billing: BillingCalendar;
}

export type KeyState = 'active' | 'disabled' | 'expired' | 'deleted';

export interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly last4: string;
  readonly state: KeyState;
  readonly rate_limit: number;
  readonly monthly_cap: number | null;
  readonly allowed_ips: readonly string[];
  readonly allowed_models: readonly string[] | null;
  readonly identity_injection: boolean;
  readonly expires_at: string | null;
  readonly active: boolean;
  readonly created_at: string;
  readonly updated_at?: string;
  /** This month's spend (Toman). */
  readonly spent_this_month: number;
  readonly last_used_at?: string | null;
  /** Made by the console for a session's playground: holds no place among the 25 active keys. */
  readonly console_playground?: boolean;
}

export interface CreatedKey extends ApiKey {
  /** The full key, shown this once. */
  readonly key: string;
}

/** The settings a holder sends when creating or editing a key (the spec's per-key settings). */
export interface KeySettings {
  name?: string;
  rate_limit?: number;
  monthly_cap?: number | null;
  allowed_ips?: string[];
  allowed_models?: string[] | null;
  identity_injection?: boolean;
  expires_at?: string | null;
  active?: boolean;
}

export interface DailyCost {
  readonly date: string;
  readonly model: string;
  readonly cost: number;
  readonly requests?: number;
}

export interface TopKey {
  readonly id: string;
  readonly name: string;
  readonly last4: string;
  readonly spent: number;
}

export interface Overview {
  readonly currency: 'IRT';
  readonly balance: number;
  readonly min_required: number;
  /** The billing month, `YYYY-MM`. */
  readonly month: string;
  readonly spent_this_month: number;
  /** The billing days the daily rows cover, inclusive (`to` is today in the billing zone). */
  readonly from: string;
  readonly to: string;
  readonly daily: readonly UsageRow[];
  readonly top_keys: readonly TopKey[];
}

export interface UsageRow {
  readonly date: string;
  readonly model: string;
  readonly requests: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cost: number;
}

export interface UsageTotals {
  readonly requests: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cost: number;
}

export interface UsageReport {
  readonly from: string;
  readonly to: string;
  readonly data: readonly UsageRow[];
  readonly totals: UsageTotals;
}

export interface LedgerEntry {
  readonly id: string;
  readonly kind: 'charge' | 'topup' | 'adjustment';
  readonly amount: number;
  readonly model: string | null;
  readonly key_id: string | null;
  readonly reference: string | null;
  readonly created_at: string;
  readonly state?: 'pending' | 'applied';
  /** Token counts of a charge. */
  readonly requests?: number | null;
  readonly input_tokens?: number | null;
  readonly output_tokens?: number | null;
}

export interface LedgerPage {
  readonly data: readonly LedgerEntry[];
  readonly next: string | null;
}

export interface Pricing {
  readonly currency: string;
  readonly unit: string;
  readonly input: number;
  readonly output: number | null;
  readonly cached_input: number | null;
  /** Rates of a request whose prompt has more than `above_input_tokens` tokens (some models only). */
  readonly long_context?: {
    readonly above_input_tokens: number;
    readonly input: number;
    readonly output: number;
    readonly cached_input: number | null;
  };
}

export type ModelType = 'chat' | 'embedding' | 'image' | 'tts' | 'stt' | 'video' | 'sound';

export interface Model {
  readonly id: string;
  readonly name?: string;
  readonly type?: ModelType;
  readonly owned_by: string;
  readonly context_window?: number | null;
  readonly max_output_tokens?: number | null;
  readonly capabilities?: readonly string[];
  readonly pricing?: Pricing;
}

export interface Video {
  readonly id: string;
  readonly model: string;
  readonly status: 'queued' | 'in_progress' | 'completed' | 'failed';
  readonly progress?: number;
  readonly prompt?: string;
  readonly seconds?: number;
  readonly aspect_ratio?: string;
  readonly url?: string;
  readonly error?: { readonly message: string } | null;
  readonly service?: { readonly cost: number; readonly currency: string } | null;
  readonly created_at?: string | number;
  readonly completed_at?: string | number | null;
  readonly expires_at?: string | number | null;
}

export interface AccountPage {
  readonly data: readonly Account[];
  readonly next: string | null;
}

export interface CreatedAccount {
  readonly account: Account;
  readonly invitation: Invitation;
}

export interface Invitation {
  readonly url: string;
  readonly expires_at: string;
  readonly purpose?: 'invite' | 'reset';
}

export interface QueueCounts {
  readonly name: string;
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
  readonly completed?: number;
}

export interface FailedJob {
  readonly id: string;
  readonly name: string;
  /** The media job the queue job ran. */
  readonly media_job_id: string | null;
  readonly attempts_made: number;
  readonly failed_reason: string;
  readonly stacktrace: string | null;
  readonly created_at: string;
  readonly failed_at: string | null;
}

/** `GET /self-serve`: whether sign-up and top-ups through the gateway are open. */
export interface SelfServeSettings {
  readonly sign_up: 'open' | 'invite';
  readonly payments: {
    readonly enabled: boolean;
    readonly min: number;
    readonly max: number;
    readonly presets: readonly number[];
  };
}

export interface Payment {
  readonly id: string;
  readonly amount: number;
  readonly status: 'pending' | 'paid' | 'failed';
  readonly ref_id: number | null;
  readonly card_pan: string | null;
  readonly reason: string | null;
  readonly created: string;
  readonly paid_at: string | null;
}

export interface StartedPayment {
  readonly id: string;
  readonly amount: number;
  readonly status: 'pending';
  readonly redirect_url: string;
  readonly created: string;
}

export interface Voucher {
  readonly id: string;
  readonly batch_id: string;
  readonly amount: number;
  readonly note: string | null;
  readonly status: 'unused' | 'used' | 'expired';
  readonly expires_at: string | null;
  readonly created: string;
  readonly redeemed_at: string | null;
  readonly redeemed_by: string | null;
}

export interface CreatedVouchers {
  readonly batch_id: string;
  readonly codes: readonly string[];
  readonly amount: number;
  readonly count: number;
  readonly expires_at: string | null;
  readonly note: string | null;
}

/** A request log record (docs/request-log.md). */
export interface RequestRecord {
  readonly id: string;
  readonly object: 'request';
  readonly created: number;
  readonly account_id: string;
  readonly key_id: string;
  readonly key_last4: string;
  readonly method: string;
  readonly path: string;
  readonly endpoint: string;
  readonly model: string | null;
  readonly provider: string | null;
  readonly channel_id: string | null;
  readonly attempts: number;
  readonly status: number;
  readonly error_code: string | number | null;
  readonly outcome: 'completed' | 'failed' | 'client_gone';
  readonly stream: boolean;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cached_tokens: number;
  readonly reasoning_tokens: number;
  readonly cost: number;
  readonly latency_ms: number;
  readonly ttft_ms: number | null;
  readonly ip: string | null;
}

export interface RequestPage {
  readonly object: 'list';
  readonly data: readonly RequestRecord[];
  readonly next_cursor: string | null;
}

/** An upstream channel, as `/console/api/channels` answers it (docs/channels.md). */
export interface Channel {
  id: string;
  object: 'channel';
  provider: string;
  name: string;
  base_url: string;
  key_last4: string;
  weight: number;
  priority: number;
  models: string[] | null;
  enabled: boolean;
  status: 'healthy' | 'cooling_down' | 'auto_disabled' | 'disabled';
  status_reason: string | null;
  cooldown_until: string | null;
  source: 'api' | 'environment';
  created_at: string;
  updated_at: string;
  requests: number;
  failures: number;
  p50_latency_ms: number | null;
}

export interface ChannelInput {
  provider?: string;
  name?: string;
  api_key?: string;
  base_url?: string | null;
  weight?: number;
  priority?: number;
  models?: string[] | null;
  enabled?: boolean;
}

export interface ChannelTest {
  ok: boolean;
  status?: number;
  latency_ms: number;
  error?: string;
}
