/** Operators: make vouchers (codes shown once) and list them, used and unused, never with a code. */
import { useState } from 'preact/hooks';
import { createVouchers, listVouchers } from '../../api/endpoints.ts';
import type { CreatedVouchers, Voucher } from '../../api/types.ts';
import {
  AsyncView,
  CopyButton,
  ErrorMessage,
  Field,
  PageHeader,
  StatusBadge,
  useAsync,
} from '../../components/ui.tsx';
import { type MessageKey, useI18n } from '../../i18n/i18n.tsx';
import { operatorAccount } from '../../paths.ts';

type Filter = 'all' | 'unused' | 'used';
const FILTERS: readonly (readonly [Filter, MessageKey])[] = [
  ['all', 'vouchers.all'],
  ['unused', 'vouchers.unused'],
  ['used', 'vouchers.used'],
];
const STATUS: Record<Voucher['status'], [string, MessageKey]> = {
  unused: ['active', 'vouchers.unused'],
  used: ['inactive', 'vouchers.used'],
  expired: ['expired', 'vouchers.expired'],
};

export function VouchersPage() {
  const { t, format } = useI18n();
  const [filter, setFilter] = useState<Filter>('all');
  const [version, setVersion] = useState(0);
  const vouchers = useAsync(
    (signal) => listVouchers(filter === 'all' ? undefined : filter, signal),
    [filter, version],
  );
  return (
    <section>
      <PageHeader title={t('vouchers.title')} />
      <CreateVouchers onCreated={() => setVersion((n) => n + 1)} />
      <section class="card" aria-labelledby="vouchers-list">
        <h2 id="vouchers-list">{t('vouchers.title')}</h2>
        <fieldset class="tabs filter-tabs">
          <legend class="visually-hidden">{t('vouchers.filter')}</legend>
          {FILTERS.map(([value, label]) => (
            <button
              key={value}
              type="button"
              aria-pressed={filter === value}
              class={filter === value ? 'tab tab-active' : 'tab'}
              onClick={() => setFilter(value)}
            >
              {t(label)}
            </button>
          ))}
        </fieldset>
        <AsyncView state={vouchers} empty={(data) => data.length === 0} emptyText={t('vouchers.empty')}>
          {(data) => (
            <div class="table-wrap">
              <table data-testid="vouchers-table">
                <thead>
                  <tr>
                    <th scope="col">{t('vouchers.created_at')}</th>
                    <th scope="col" class="num">
                      {t('wallet.amount_toman')}
                    </th>
                    <th scope="col">{t('wallet.status')}</th>
                    <th scope="col">{t('vouchers.redeemed_by')}</th>
                    <th scope="col">{t('vouchers.note')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((voucher) => {
                    const [badge, label] = STATUS[voucher.status];
                    return (
                      <tr key={voucher.id} data-status={voucher.status}>
                        <td class="nowrap">{format.dateTime(voucher.created)}</td>
                        <td class="num" dir="ltr">
                          {format.amount(voucher.amount)}
                        </td>
                        <td>
                          <StatusBadge status={badge} label={t(label)} />
                          {voucher.expires_at ? (
                            <small class="muted block">{format.date(voucher.expires_at)}</small>
                          ) : null}
                        </td>
                        <td>
                          {voucher.redeemed_by ? (
                            <a href={operatorAccount(voucher.redeemed_by)}>
                              <code dir="ltr">{voucher.redeemed_by}</code>
                            </a>
                          ) : (
                            '—'
                          )}
                        </td>
                        <td>{voucher.note ?? '—'}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </AsyncView>
      </section>
    </section>
  );
}

function CreateVouchers({ onCreated }: { onCreated: () => void }) {
  const { t } = useI18n();
  const [amount, setAmount] = useState('100000');
  const [count, setCount] = useState('10');
  const [expires, setExpires] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<CreatedVouchers | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setCreated(undefined);
    try {
      const body: { amount: number; count: number; expires_at?: string; note?: string } = {
        amount: Number(amount),
        count: Number(count),
      };
      if (expires !== '') body.expires_at = new Date(`${expires}T23:59:59`).toISOString();
      if (note.trim() !== '') body.note = note.trim();
      setCreated(await createVouchers(body));
      onCreated();
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  return (
    <section class="card" aria-labelledby="vouchers-create">
      <h2 id="vouchers-create">{t('vouchers.create')}</h2>
      <form class="form grid-form" onSubmit={submit}>
        <Field label={t('vouchers.amount')}>
          {(id) => (
            <input
              id={id}
              name="amount"
              inputMode="numeric"
              dir="ltr"
              value={amount}
              onInput={(e) => setAmount(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label={t('vouchers.count')}>
          {(id) => (
            <input
              id={id}
              name="count"
              inputMode="numeric"
              dir="ltr"
              value={count}
              onInput={(e) => setCount(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label={t('vouchers.expires')}>
          {(id) => (
            <input
              id={id}
              name="expires"
              type="date"
              dir="ltr"
              value={expires}
              onInput={(e) => setExpires(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label={t('vouchers.note')}>
          {(id) => <input id={id} name="note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />}
        </Field>
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? t('common.working') : t('vouchers.create')}
        </button>
      </form>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      {created !== undefined ? (
        <div class="notice notice-paid" role="status" data-testid="voucher-codes">
          <p>{t('vouchers.created', { count: created.codes.length })}</p>
          <pre dir="ltr" class="codes">
            {created.codes.join('\n')}
          </pre>
          <CopyButton text={created.codes.join('\n')} />
        </div>
      ) : null}
    </section>
  );
}
