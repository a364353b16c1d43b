/** The wallet's top-up through the gateway, its payments with receipts, and voucher redemption. */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { redeemVoucher, startPayment } from '../api/endpoints.ts';
import type { Payment, SelfServeSettings } from '../api/types.ts';
import { AsyncView, ErrorMessage, Field, Modal, StatusBadge, useAsync } from '../components/ui.tsx';
import { type MessageKey, useI18n } from '../i18n/i18n.tsx';

const REASONS: Record<string, MessageKey> = {
  cancelled: 'reason.cancelled',
  not_paid: 'reason.not_paid',
  amount_mismatch: 'reason.amount_mismatch',
  unknown_authority: 'reason.unknown_authority',
  invalid_authority: 'reason.unknown_authority',
  expired: 'reason.expired',
  gateway_unavailable: 'reason.gateway_unavailable',
  payments_disabled: 'reason.payments_disabled',
};

export function useReasonText() {
  const { t } = useI18n();
  return (reason: string | null | undefined) => {
    if (reason == null) return '';
    const key = REASONS[reason];
    return key === undefined ? t('reason.other', { reason }) : t(key);
  };
}

/** What the gateway's callback told the page (`?payment=paid|failed|pending&reason=…`). */
export function PaymentResult() {
  const { t } = useI18n();
  const { query } = useLocation();
  const reasonText = useReasonText();
  const result = query.payment;
  if (result !== 'paid' && result !== 'failed' && result !== 'pending') return null;
  const text =
    result === 'paid'
      ? t('wallet.result_paid')
      : result === 'pending'
        ? t('wallet.result_pending')
        : t('wallet.result_failed', { reason: reasonText(query.reason ?? 'other') });
  return (
    <div class={`notice notice-${result}`} role="status" data-testid="payment-result" data-result={result}>
      {text}
    </div>
  );
}

export function TopUpCard({ settings }: { settings: SelfServeSettings['payments'] }) {
  const { t, format } = useI18n();
  const [amount, setAmount] = useState(String(settings.presets[0] ?? settings.min));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [touched, setTouched] = useState(false);
  const value = Number(amount.trim());
  const valid = /^\d+$/.test(amount.trim()) && value >= settings.min && value <= settings.max;
  const limits = { min: format.number(settings.min), max: format.number(settings.max) };
  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    if (!valid) return;
    setBusy(true);
    setError(undefined);
    try {
      const started = await startPayment(value);
      window.location.assign(started.redirect_url);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="topup-title" data-testid="top-up">
      <h2 id="topup-title">{t('wallet.topup_title')}</h2>
      <p class="muted">{t('wallet.topup_intro')}</p>
      <form class="form" onSubmit={submit} noValidate>
        <fieldset class="presets">
          <legend class="visually-hidden">{t('wallet.topup_presets')}</legend>
          {settings.presets.map((preset) => (
            <button
              key={preset}
              type="button"
              class={String(preset) === amount ? 'button preset preset-active' : 'button preset'}
              aria-pressed={String(preset) === amount}
              onClick={() => setAmount(String(preset))}
            >
              {format.number(preset)}
            </button>
          ))}
        </fieldset>
        <Field
          label={t('wallet.topup_amount')}
          hint={t('wallet.topup_limits', limits)}
          error={touched && !valid ? t('wallet.topup_invalid', limits) : undefined}
        >
          {(id, describedBy) => (
            <input
              id={id}
              name="amount"
              inputMode="numeric"
              dir="ltr"
              aria-describedby={describedBy}
              aria-invalid={touched && !valid}
              value={amount}
              onInput={(e) =>
                setAmount(e.currentTarget.value.replace(/[۰-۹]/g, (d) => String('۰۱۲۳۴۵۶۷۸۹'.indexOf(d))))
              }
            />
          )}
        </Field>
        {error !== undefined ? <ErrorMessage error={error} /> : null}
        <button type="submit" class="button button-primary" disabled={busy} data-testid="top-up-submit">
          {busy
            ? t('common.working')
            : t('wallet.topup_submit', { amount: valid ? format.money(value) : '' })}
        </button>
      </form>
    </section>
  );
}

const STATUS_LABEL: Record<Payment['status'], MessageKey> = {
  pending: 'wallet.status_pending',
  paid: 'wallet.status_paid',
  failed: 'wallet.status_failed',
};
const STATUS_BADGE: Record<Payment['status'], string> = {
  pending: 'queued',
  paid: 'active',
  failed: 'failed',
};

/** Payments, newest first, each with its receipt (the holder's own, or an account's for operators). */
export function PaymentsView(props: {
  load: (signal: AbortSignal) => Promise<readonly Payment[]>;
  version?: number;
}) {
  const { t, format } = useI18n();
  const payments = useAsync((signal) => props.load(signal), [props.version]);
  const [receipt, setReceipt] = useState<Payment | undefined>();
  const reasonText = useReasonText();
  return (
    <section class="card" aria-labelledby="payments-title">
      <h2 id="payments-title">{t('wallet.payments')}</h2>
      <AsyncView state={payments} empty={(data) => data.length === 0} emptyText={t('wallet.payments_empty')}>
        {(data) => (
          <div class="table-wrap">
            <table data-testid="payments-table">
              <thead>
                <tr>
                  <th scope="col">{t('wallet.when')}</th>
                  <th scope="col" class="num">
                    {t('wallet.amount_toman')}
                  </th>
                  <th scope="col">{t('wallet.status')}</th>
                  <th scope="col">
                    <span class="visually-hidden">{t('wallet.receipt')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.map((payment) => (
                  <tr key={payment.id} data-status={payment.status}>
                    <td class="nowrap">{format.dateTime(payment.created)}</td>
                    <td class="num" dir="ltr">
                      {format.amount(payment.amount)}
                    </td>
                    <td>
                      <StatusBadge
                        status={STATUS_BADGE[payment.status]}
                        label={t(STATUS_LABEL[payment.status])}
                      />
                      {payment.status !== 'paid' && payment.reason ? (
                        <small class="muted block">{reasonText(payment.reason)}</small>
                      ) : null}
                    </td>
                    <td>
                      <button type="button" class="button button-small" onClick={() => setReceipt(payment)}>
                        {t('wallet.receipt')}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </AsyncView>
      <Modal
        title={t('wallet.receipt_title')}
        open={receipt !== undefined}
        onClose={() => setReceipt(undefined)}
      >
        {receipt === undefined ? null : (
          <dl class="receipt" data-testid="receipt">
            <dt>{t('wallet.receipt_id')}</dt>
            <dd>
              <code dir="ltr">{receipt.id}</code>
            </dd>
            <dt>{t('wallet.amount_toman')}</dt>
            <dd>{format.money(receipt.amount)}</dd>
            <dt>{t('wallet.status')}</dt>
            <dd>{t(STATUS_LABEL[receipt.status])}</dd>
            {receipt.ref_id !== null ? (
              <>
                <dt>{t('wallet.receipt_ref')}</dt>
                <dd dir="ltr">{receipt.ref_id}</dd>
              </>
            ) : null}
            {receipt.card_pan !== null ? (
              <>
                <dt>{t('wallet.receipt_card')}</dt>
                <dd dir="ltr">{receipt.card_pan}</dd>
              </>
            ) : null}
            {receipt.paid_at !== null ? (
              <>
                <dt>{t('wallet.receipt_paid_at')}</dt>
                <dd>{format.dateTime(receipt.paid_at)}</dd>
              </>
            ) : null}
            {receipt.status !== 'paid' && receipt.reason ? (
              <>
                <dt>{t('wallet.receipt_reason')}</dt>
                <dd>{reasonText(receipt.reason)}</dd>
              </>
            ) : null}
          </dl>
        )}
      </Modal>
    </section>
  );
}

export function RedeemCard({ onRedeemed }: { onRedeemed: () => void }) {
  const { t, format } = useI18n();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<{ amount: number; balance: number } | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (code.trim() === '') return;
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      setDone(await redeemVoucher(code.trim()));
      setCode('');
      onRedeemed();
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  return (
    <section class="card" aria-labelledby="redeem-title" data-testid="redeem">
      <h2 id="redeem-title">{t('wallet.redeem_title')}</h2>
      <form class="form" onSubmit={submit}>
        <Field label={t('wallet.redeem_code')}>
          {(id) => (
            <input
              id={id}
              name="code"
              dir="ltr"
              autocomplete="off"
              spellcheck={false}
              placeholder="XXXX-XXXX-XXXX-XXXX"
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? t('common.working') : t('wallet.redeem_submit')}
        </button>
      </form>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      {done !== undefined ? (
        <p class="notice notice-paid" role="status" data-testid="redeemed">
          {t('wallet.redeemed', { amount: format.money(done.amount), balance: format.money(done.balance) })}
        </p>
      ) : null}
    </section>
  );
}
