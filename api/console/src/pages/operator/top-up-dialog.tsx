import { useRef, useState } from 'preact/hooks';
import { newIdempotencyKey, topUp } from '../../api/endpoints.ts';
import type { Account } from '../../api/types.ts';
import { ErrorMessage, Field, Modal } from '../../components/ui.tsx';
import { useI18n } from '../../i18n/i18n.tsx';

/** The server's bounds of a top-up amount (docs/console.md, "Top-up"). */
const AMOUNT = { maxIrt: 1_000_000_000_000, maxDecimals: 6, maxSignificantDigits: 15 } as const;
const DECIMAL = /^\d+(?:\.(\d+))?$/;

/**
 * Why the typed amount cannot be sent, or undefined when it can. A JSON number of at most 15
 * significant digits is answered exactly, so the server refuses more; the page says so first.
 */
export function amountProblem(text: string): 'invalid' | 'digits' | undefined {
  const match = DECIMAL.exec(text.trim());
  const value = Number(text);
  if (match === null || !(value > 0) || value > AMOUNT.maxIrt) return 'invalid';
  const decimals = match[1]?.replace(/0+$/, '') ?? '';
  const digits = `${text.trim().split('.')[0]}${decimals}`.replace(/^0+/, '').replace(/0+$/, '');
  if (decimals.length > AMOUNT.maxDecimals || digits.length > AMOUNT.maxSignificantDigits) return 'digits';
  return undefined;
}

/**
 * Tops an account up. One submission carries one `Idempotency-Key`: a second click while it runs is
 * ignored, and sending again after a failure (the answer may have been lost after the credit)
 * reuses the key, so the server credits once. Changing the amount or reference makes a new one.
 */
export function TopUpDialog(props: {
  open: boolean;
  account: Account;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t, format } = useI18n();
  const [amount, setAmount] = useState('');
  const [reference, setReference] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [balance, setBalance] = useState<number>();
  const submission = useRef(newIdempotencyKey());
  const sending = useRef(false);
  const problem = amount.trim() === '' ? undefined : amountProblem(amount);
  const valid = amount.trim() !== '' && problem === undefined;
  const edit = (apply: () => void) => {
    submission.current = newIdempotencyKey();
    apply();
  };
  const close = () => {
    edit(() => {
      setAmount('');
      setReference('');
    });
    setError(undefined);
    setBalance(undefined);
    props.onClose();
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!valid || reference.trim() === '' || sending.current) return;
    sending.current = true;
    setBusy(true);
    setError(undefined);
    try {
      const top = { amount: Number(amount), reference: reference.trim(), idempotencyKey: submission.current };
      const result = await topUp(props.account.id, top);
      setBalance(result.balance);
      props.onDone();
    } catch (err) {
      setError(err);
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };
  return (
    <Modal
      title={t('operator.top_up_title', { email: props.account.email })}
      open={props.open}
      onClose={close}
    >
      {balance !== undefined ? (
        <div>
          <p class="note note-success" role="status">
            {t('operator.topped_up', { balance: format.money(balance) })}
          </p>
          <div class="actions">
            <button type="button" class="button button-primary" onClick={close}>
              {t('common.done')}
            </button>
          </div>
        </div>
      ) : (
        <form class="form" onSubmit={submit}>
          <Field
            label={t('operator.amount_toman')}
            hint={valid ? format.money(Number(amount)) : undefined}
            error={problem === 'digits' ? t('operator.amount_digits') : undefined}
          >
            {(id, describedBy) => (
              <input
                id={id}
                name="amount"
                type="number"
                inputMode="decimal"
                min={0}
                step="any"
                dir="ltr"
                required
                aria-invalid={problem !== undefined}
                aria-describedby={describedBy}
                value={amount}
                onInput={(e) => edit(() => setAmount(e.currentTarget.value))}
              />
            )}
          </Field>
          <Field label={t('operator.reference')} hint={t('operator.reference_hint')}>
            {(id, describedBy) => (
              <input
                id={id}
                name="reference"
                maxLength={200}
                required
                aria-describedby={describedBy}
                value={reference}
                onInput={(e) => edit(() => setReference(e.currentTarget.value))}
              />
            )}
          </Field>
          {error !== undefined ? <ErrorMessage error={error} /> : null}
          <div class="actions">
            <button type="button" class="button" onClick={close}>
              {t('common.cancel')}
            </button>
            <button
              type="submit"
              class="button button-primary"
              disabled={busy || !valid || reference.trim() === ''}
            >
              {busy ? t('common.working') : t('operator.top_up')}
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
