/**
 * A fake of Zarinpal's REST v4 payment gateway, written from its documentation: payment request,
 * the StartPay page (with "Pay" and "Cancel" buttons that send the browser to the callback), verify
 * and inquiry, with the documented success and error bodies and codes. A real HTTP server on
 * 127.0.0.1; `npm run zarinpal:fake` runs it alone for the local stack (ZARINPAL_BASE_URL).
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SessionState = 'IN_BANK' | 'PAID' | 'FAILED' | 'VERIFIED';

export interface FakeSession {
  readonly authority: string;
  readonly merchantId: string;
  readonly amount: number;
  readonly currency: string;
  readonly description: string;
  readonly callbackUrl: string;
  readonly metadata: Record<string, unknown>;
  state: SessionState;
  refId: number | null;
  verifies: number;
}

/** What the next request to an endpoint does instead of answering normally. */
export type ZarinpalFault =
  | { kind: 'error'; code: number; message?: string }
  | { kind: 'hang' }
  | { kind: 'http'; status: number };

export interface ZarinpalFake {
  /** `http://127.0.0.1:<port>`: the ZARINPAL_BASE_URL of the gateway under test. */
  readonly baseUrl: string;
  readonly sessions: Map<string, FakeSession>;
  /** Every JSON call received, in order (endpoint and body). */
  readonly calls: { endpoint: string; body: Record<string, unknown> }[];
  /** The next `times` calls of `endpoint` fail like this. */
  fail(endpoint: 'request' | 'verify' | 'inquiry', fault: ZarinpalFault, times?: number): void;
  /** The payer paid (as the StartPay page's "Pay" does, without the browser). */
  pay(authority: string): void;
  close(): Promise<void>;
}

const MESSAGES: Record<number, string> = {
  [-9]: 'The input params invalid, validation error.',
  [-10]: 'Terminal is not valid, please check merchant_id or ip address.',
  [-11]: 'Terminal is not active, please contact our support team.',
  [-12]: 'To many attempts, please try again later.',
  [-50]: 'Session is not valid, amounts values is not the same.',
  [-51]: 'Session is not valid, session is not active paid try.',
  [-52]: 'Oops!!, please contact our support team',
  [-53]: 'Session is not this merchant_id session',
  [-54]: 'Invalid authority.',
  [-55]: 'Manual payment request not found.',
};

const AUTHORITY_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function newAuthority(): string {
  let tail = '';
  for (let i = 0; i < 8; i += 1) tail += AUTHORITY_CHARS[randomInt(AUTHORITY_CHARS.length)];
  return `A${'0'.repeat(27)}${tail}`;
}

export interface ZarinpalFakeOptions {
  readonly port?: number;
  /** Only this merchant id is known (-10 for others); any 36-character id when unset. */
  readonly merchantId?: string;
}

export async function startZarinpalFake(options: ZarinpalFakeOptions = {}): Promise<ZarinpalFake> {
  const sessions = new Map<string, FakeSession>();
  const calls: { endpoint: string; body: Record<string, unknown> }[] = [];
  const faults: Record<string, ZarinpalFault[]> = { request: [], verify: [], inquiry: [] };
  let nextRefId = 201;
  const hanging = new Set<ServerResponse>();

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, code: number, validations?: Record<string, string>[]) =>
    json(res, code === -9 ? 422 : 400, {
      data: [],
      errors: { code, message: MESSAGES[code] ?? 'error', validations: validations ?? [] },
    });

  const merchantProblem = (merchant: unknown): number | null => {
    if (typeof merchant !== 'string' || merchant.length !== 36) return -9;
    if (options.merchantId !== undefined && merchant !== options.merchantId) return -10;
    return null;
  };

  function handleRequest(res: ServerResponse, body: Record<string, unknown>) {
    const merchant = merchantProblem(body.merchant_id);
    if (merchant === -9)
      return error(res, -9, [{ merchant_id: 'The merchant id field must be 36 characters.' }]);
    if (merchant !== null) return error(res, merchant);
    const amount = body.amount;
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1000)
      return error(res, -9, [{ amount: 'The amount must be an integer of at least 1000.' }]);
    const currency = body.currency ?? 'IRR';
    if (currency !== 'IRR' && currency !== 'IRT')
      return error(res, -9, [{ currency: 'The currency is invalid.' }]);
    if (typeof body.callback_url !== 'string' || !/^https?:\/\//.test(body.callback_url))
      return error(res, -9, [{ callback_url: 'The callback url field is required.' }]);
    if (typeof body.description !== 'string' || body.description === '')
      return error(res, -9, [{ description: 'The description field is required.' }]);
    const authority = newAuthority();
    sessions.set(authority, {
      authority,
      merchantId: body.merchant_id as string,
      amount,
      currency: currency as string,
      description: body.description,
      callbackUrl: body.callback_url,
      metadata: (body.metadata as Record<string, unknown>) ?? {},
      state: 'IN_BANK',
      refId: null,
      verifies: 0,
    });
    return json(res, 200, {
      data: { code: 100, message: 'Success', authority, fee_type: 'Merchant', fee: 100 },
      errors: [],
    });
  }

  function handleVerify(res: ServerResponse, body: Record<string, unknown>) {
    const merchant = merchantProblem(body.merchant_id);
    if (merchant !== null) return error(res, merchant);
    if (typeof body.authority !== 'string' || body.authority.length !== 36) return error(res, -9);
    const session = sessions.get(body.authority);
    if (session === undefined) return error(res, -54);
    if (session.merchantId !== body.merchant_id) return error(res, -53);
    if (body.amount !== session.amount) return error(res, -50);
    if (session.state === 'IN_BANK' || session.state === 'FAILED') return error(res, -51);
    session.verifies += 1;
    const first = session.state === 'PAID';
    if (first) {
      session.state = 'VERIFIED';
      session.refId = nextRefId;
      nextRefId += 1;
    }
    return json(res, 200, {
      data: {
        code: first ? 100 : 101,
        message: first ? 'Verified' : 'Verified',
        card_hash: createHash('sha256').update(session.authority).digest('hex'),
        card_pan: '502229******5995',
        ref_id: session.refId,
        fee_type: 'Merchant',
        fee: 0,
      },
      errors: [],
    });
  }

  function handleInquiry(res: ServerResponse, body: Record<string, unknown>) {
    const merchant = merchantProblem(body.merchant_id);
    if (merchant !== null) return error(res, merchant);
    const session = typeof body.authority === 'string' ? sessions.get(body.authority) : undefined;
    if (session === undefined) return error(res, -54);
    return json(res, 200, { data: { code: 100, message: 'Success', status: session.state }, errors: [] });
  }

  function startPayPage(res: ServerResponse, session: FakeSession) {
    const action = (status: 'pay' | 'cancel') => `/pg/StartPay/${session.authority}/${status}`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="fa" dir="rtl"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Zarinpal (fake) — پرداخت</title>
<style>body{font-family:sans-serif;max-width:420px;margin:40px auto;padding:0 16px}button{font-size:18px;padding:10px 20px;margin:8px}</style>
</head><body><h1>درگاه آزمایشی زرین‌پال</h1>
<p>مبلغ: <strong id="amount">${session.amount}</strong> ${session.currency === 'IRT' ? 'تومان' : 'ریال'}</p>
<p>${session.description.replace(/[<>&]/g, '')}</p>
<form method="post" action="${action('pay')}"><button id="pay" type="submit">Pay / پرداخت</button></form>
<form method="post" action="${action('cancel')}"><button id="cancel" type="submit">Cancel / انصراف</button></form>
</body></html>`);
  }

  function backToMerchant(res: ServerResponse, session: FakeSession, ok: boolean) {
    if (ok && session.state === 'IN_BANK') session.state = 'PAID';
    if (!ok && session.state === 'IN_BANK') session.state = 'FAILED';
    const url = new URL(session.callbackUrl);
    url.searchParams.set('Authority', session.authority);
    url.searchParams.set('Status', ok ? 'OK' : 'NOK');
    res.writeHead(302, { location: url.toString() });
    res.end();
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      const start = /^\/pg\/StartPay\/([A-Za-z0-9]{36})(?:\/(pay|cancel))?$/.exec(path);
      if (start !== null) {
        const session = sessions.get(start[1] as string);
        if (session === undefined) {
          res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
          return res.end('<!doctype html><p>Invalid authority.</p>');
        }
        if (start[2] === undefined) return startPayPage(res, session);
        return backToMerchant(res, session, start[2] === 'pay');
      }
      const endpoint = /^\/pg\/v4\/payment\/(request|verify|inquiry)\.json$/.exec(path)?.[1];
      if (endpoint === undefined || req.method !== 'POST')
        return json(res, 404, { data: [], errors: { code: -9, message: 'not found' } });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        return error(res, -9);
      }
      calls.push({ endpoint, body });
      const fault = faults[endpoint]?.shift();
      if (fault?.kind === 'hang') {
        hanging.add(res);
        return;
      }
      if (fault?.kind === 'http') {
        res.writeHead(fault.status, { 'content-type': 'text/html' });
        return res.end('<html>bad gateway</html>');
      }
      if (fault?.kind === 'error') return error(res, fault.code);
      if (endpoint === 'request') return handleRequest(res, body);
      if (endpoint === 'verify') return handleVerify(res, body);
      return handleInquiry(res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    sessions,
    calls,
    fail(endpoint, fault, times = 1) {
      for (let i = 0; i < times; i += 1) faults[endpoint]?.push(fault);
    },
    pay(authority) {
      const session = sessions.get(authority);
      if (session === undefined) throw new Error(`no session ${authority}`);
      if (session.state === 'IN_BANK') session.state = 'PAID';
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A merchant id of the right shape for tests and the local stack. */
export function fakeMerchantId(): string {
  const hex = randomBytes(16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
