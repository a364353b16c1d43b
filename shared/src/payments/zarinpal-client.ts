/**
 * Zarinpal's REST v4 API (docs/payments.md): payment request, StartPay, verify, inquiry. Amounts are
 * whole Toman and sent with `currency: "IRT"` explicitly (the gateway's default is Rial).
 */

export interface ZarinpalSettings {
  readonly merchantId: string;
  /** `https://payment.zarinpal.com`, `https://sandbox.zarinpal.com`, or a fake's. */
  readonly baseUrl: string;
  readonly timeoutMs?: number;
}

/** The gateway answered with an error code (its `errors` object). */
export interface ZarinpalRefusal {
  readonly ok: false;
  readonly code: number;
  readonly message: string;
}

export type RequestOutcome = { readonly ok: true; readonly authority: string } | ZarinpalRefusal;

export type VerifyOutcome =
  | {
      readonly ok: true;
      /** 100: verified now; 101: verified before. */
      readonly code: 100 | 101;
      readonly refId: number;
      readonly cardPan: string | null;
    }
  | ZarinpalRefusal;

export type InquiryStatus = 'VERIFIED' | 'PAID' | 'IN_BANK' | 'FAILED' | 'REVERSED';
export type InquiryOutcome = { readonly ok: true; readonly status: InquiryStatus } | ZarinpalRefusal;

/** The gateway did not answer, or answered something that is not its API (timeout, 5xx, not JSON). */
export class ZarinpalUnavailable extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ZarinpalUnavailable';
  }
}

export interface PaymentRequest {
  readonly amountToman: number;
  readonly description: string;
  readonly callbackUrl: string;
  readonly email?: string;
  readonly orderId?: string;
}

export interface ZarinpalClient {
  request(input: PaymentRequest): Promise<RequestOutcome>;
  verify(input: { amountToman: number; authority: string }): Promise<VerifyOutcome>;
  inquiry(authority: string): Promise<InquiryOutcome>;
  /** Where the payer's browser goes to pay. */
  startPayUrl(authority: string): string;
}

type Answer = { data?: unknown; errors?: unknown };

/**
 * An authority as the gateway makes them: 36 characters starting with A or S by its documentation;
 * any 8 to 64 letters and digits are taken (the gateway may lengthen them), nothing else is.
 */
export const AUTHORITY = /^[A-Za-z0-9]{8,64}$/;

export function createZarinpalClient(settings: ZarinpalSettings): ZarinpalClient {
  const timeoutMs = settings.timeoutMs ?? 15_000;

  async function post(path: string, body: object): Promise<Answer> {
    let response: Response;
    try {
      response = await fetch(`${settings.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new ZarinpalUnavailable(`Zarinpal did not answer (${path})`, err);
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ZarinpalUnavailable(`Zarinpal answered ${response.status} without JSON (${path})`);
    }
    if (typeof parsed !== 'object' || parsed === null) {
      throw new ZarinpalUnavailable(`Zarinpal answered ${response.status} with an unknown body (${path})`);
    }
    return parsed as Answer;
  }

  /** The error of an answer, when its `errors` holds one (`[]` when there is none). */
  function refusalOf(answer: Answer): ZarinpalRefusal | null {
    const errors = answer.errors as { code?: unknown; message?: unknown } | unknown[] | undefined;
    if (errors === undefined || Array.isArray(errors) || typeof errors !== 'object' || errors === null)
      return null;
    const code = Number(errors.code);
    if (!Number.isInteger(code)) return null;
    return { ok: false, code, message: typeof errors.message === 'string' ? errors.message : 'error' };
  }

  function dataOf(answer: Answer, path: string): Record<string, unknown> {
    const data = answer.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw new ZarinpalUnavailable(`Zarinpal answered neither data nor an error (${path})`);
    return data as Record<string, unknown>;
  }

  return {
    async request(input) {
      const path = '/pg/v4/payment/request.json';
      const metadata: Record<string, string> = {};
      if (input.email !== undefined) metadata.email = input.email;
      if (input.orderId !== undefined) metadata.order_id = input.orderId;
      const answer = await post(path, {
        merchant_id: settings.merchantId,
        amount: input.amountToman,
        currency: 'IRT',
        description: input.description,
        callback_url: input.callbackUrl,
        metadata,
      });
      const refusal = refusalOf(answer);
      if (refusal !== null) return refusal;
      const data = dataOf(answer, path);
      const code = Number(data.code);
      if (code !== 100 || typeof data.authority !== 'string' || !AUTHORITY.test(data.authority))
        return {
          ok: false,
          code: Number.isInteger(code) ? code : -1,
          message: String(data.message ?? 'unexpected answer'),
        };
      return { ok: true, authority: data.authority };
    },

    async verify(input) {
      const path = '/pg/v4/payment/verify.json';
      const answer = await post(path, {
        merchant_id: settings.merchantId,
        amount: input.amountToman,
        authority: input.authority,
      });
      const refusal = refusalOf(answer);
      if (refusal !== null) return refusal;
      const data = dataOf(answer, path);
      const code = Number(data.code);
      const refId = Number(data.ref_id);
      if ((code !== 100 && code !== 101) || !Number.isSafeInteger(refId))
        return {
          ok: false,
          code: Number.isInteger(code) ? code : -1,
          message: String(data.message ?? 'unexpected answer'),
        };
      return { ok: true, code, refId, cardPan: typeof data.card_pan === 'string' ? data.card_pan : null };
    },

    async inquiry(authority) {
      const path = '/pg/v4/payment/inquiry.json';
      const answer = await post(path, { merchant_id: settings.merchantId, authority });
      const refusal = refusalOf(answer);
      if (refusal !== null) return refusal;
      const data = dataOf(answer, path);
      const status = String(data.status ?? '');
      if (!['VERIFIED', 'PAID', 'IN_BANK', 'FAILED', 'REVERSED'].includes(status))
        return { ok: false, code: Number(data.code) || -1, message: `unknown status ${status}` };
      return { ok: true, status: status as InquiryStatus };
    },

    startPayUrl: (authority) => `${settings.baseUrl}/pg/StartPay/${encodeURIComponent(authority)}`,
  };
}
