import type { Billing } from '../../../shared/src/billing/billing.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import type { Logger } from '../../../shared/src/logging/logger.ts';
import { createMailer, type Mailer } from '../../../shared/src/mail/mailer.ts';
import type { SettlementDeps } from '../../../shared/src/payments/payment-settlement.ts';
import { createZarinpalClient } from '../../../shared/src/payments/zarinpal-client.ts';
import type { Redis } from '../../../shared/src/redis/redis.ts';
import type { Store } from '../../../shared/src/store/store.ts';
import { createSignInLimiter, type SignInLimiter } from '../console/sign-in-limiter.ts';
import { createPendingSignUps, type PendingSignUps } from './pending-sign-ups.ts';

/** Sign-up, reset by email, top-ups through Zarinpal and vouchers (docs/payments.md, docs/console.md). */
export interface SelfServeServices {
  readonly signupMode: Config['signupMode'];
  readonly mailer: Mailer;
  readonly signUps: PendingSignUps;
  /**
   * Sign-ups and forgotten-password mails, counted per email and per IP with the limits of
   * sign-in but in counters of their own (a burst of sign-ups leaves the address's sign-ins alone).
   */
  readonly signUpLimiter: SignInLimiter;
  readonly forgotLimiter: SignInLimiter;
  readonly payments: Store['payments'];
  readonly vouchers: Store['vouchers'];
  /** Set when `ZARINPAL_MERCHANT_ID` is: the gateway and what settles its payments. */
  readonly settlement: SettlementDeps | undefined;
  readonly limits: { readonly minToman: number; readonly maxToman: number };
  /** Mails sent in the background (answers never wait on SMTP); tests wait for them. */
  readonly outbox: Outbox;
}

/** Sends mails after the answer (its time then tells nothing about the address), logging failures. */
export interface Outbox {
  post(send: () => Promise<void>): void;
  /** Resolves when every mail posted so far was sent or failed. */
  drain(): Promise<void>;
}

export function createOutbox(logger: Logger): Outbox {
  const inFlight = new Set<Promise<void>>();
  return {
    post(send) {
      const sending = send()
        .catch((err: unknown) => logger.error({ err }, 'a mail could not be sent'))
        .finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    },
    async drain() {
      await Promise.all([...inFlight]);
    },
  };
}

export interface SelfServeDeps {
  readonly config: Pick<Config, 'signupMode' | 'mail' | 'payments' | 'queues'>;
  readonly redis: Redis;
  readonly store: Pick<Store, 'payments' | 'vouchers'>;
  readonly billing: Pick<Billing, 'topUp'>;
  readonly clock: () => Date;
  readonly logger: Logger;
}

export function createSelfServeServices(deps: SelfServeDeps): SelfServeServices {
  const { config } = deps;
  const zarinpal = config.payments.zarinpal;
  return {
    signupMode: config.signupMode,
    mailer: createMailer(config.mail, deps.logger),
    signUps: createPendingSignUps(deps.redis, `${config.queues.prefix}:console:`),
    signUpLimiter: createSignInLimiter({
      redis: deps.redis,
      keyPrefix: `${config.queues.prefix}:console:sign-up:`,
    }),
    forgotLimiter: createSignInLimiter({
      redis: deps.redis,
      keyPrefix: `${config.queues.prefix}:console:forgot:`,
    }),
    payments: deps.store.payments,
    vouchers: deps.store.vouchers,
    settlement:
      zarinpal === undefined
        ? undefined
        : {
            payments: deps.store.payments,
            zarinpal: createZarinpalClient(zarinpal),
            billing: deps.billing,
            clock: deps.clock,
            logger: deps.logger,
          },
    limits: { minToman: config.payments.minToman, maxToman: config.payments.maxToman },
    outbox: createOutbox(deps.logger),
  };
}
