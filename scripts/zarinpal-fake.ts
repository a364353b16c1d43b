/**
 * Runs the Zarinpal fake alone (`npm run zarinpal:fake`), for trying top-ups on the local stack:
 *   ZARINPAL_FAKE_PORT=8091 npm run zarinpal:fake
 *   ZARINPAL_MERCHANT_ID=<any 36 characters> ZARINPAL_BASE_URL=http://127.0.0.1:8091 npm start
 * Its StartPay page has "Pay" and "Cancel" buttons; nothing leaves 127.0.0.1 (docs/payments.md).
 */
import { startZarinpalFake } from '../test/fakes/zarinpal-gateway.ts';

const port = Number(process.env.ZARINPAL_FAKE_PORT ?? 8091);
const fake = await startZarinpalFake({ port });
process.stdout.write(`[zarinpal-fake] listening: ZARINPAL_BASE_URL=${fake.baseUrl}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    fake.close().finally(() => process.exit(0));
  });
}
