import { useState } from 'preact/hooks';
import { getLedger, getOverview, getSelfServe, listPayments } from '../api/endpoints.ts';
import type { LedgerEntry, LedgerPage } from '../api/types.ts';
import { AsyncView, PageHeader, Pager, useAsync, useCursorPages } from '../components/ui.tsx';
import { type MessageKey, useI18n } from '../i18n/i18n.tsx';
import { PaymentResult, PaymentsView, RedeemCard, TopUpCard } from './payments.tsx';

export const LEDGER_PAGE_SIZE = 50;

export function WalletPage() {
  const { t, format } = useI18n();
  const [version, setVersion] = useState(0);
  const balance = useAsync((signal) => getOverview(7, signal), [version]);
  const settings = useAsync((signal) => getSelfServe(signal), []);
  return (
    <section>
      <PageHeader title={t('wallet.title')} />
      <PaymentResult />
      <AsyncView state={balance}>
        {(data) => (
          <div class="stats">
            <div class="stat" data-testid="wallet-balance">
              <span class="stat-label">{t('overview.balance')}</span>
              <span class="stat-value">{format.money(data.balance)}</span>
              <span class="stat-note">
                {t('overview.min_required', { amount: format.money(data.min_required) })}
              </span>
            </div>
          </div>
        )}
      </AsyncView>
      <div class="wallet-actions">
        {settings.status === 'ready' && settings.data.payments.enabled ? (
          <TopUpCard settings={settings.data.payments} />
        ) : settings.status === 'ready' ? (
          <p class="note">{t('wallet.topup_disabled')}</p>
        ) : null}
        <RedeemCard onRedeemed={() => setVersion((n) => n + 1)} />
      </div>
      <PaymentsView load={(signal) => listPayments(signal)} version={version} />
      <p class="note">{t('wallet.topup_note')}</p>
      <LedgerView key={version} load={(query, signal) => getLedger(query, signal)} />
    </section>
  );
}

const KIND_LABEL: Record<LedgerEntry['kind'], MessageKey> = {
  charge: 'wallet.kind_charge',
  topup: 'wallet.kind_topup',
  adjustment: 'wallet.kind_adjustment',
};

/** A charge is keyed by its request or job id; a top-up shows the operator's reference, or its id. */
export function referenceOf(entry: LedgerEntry): string {
  // `||`: an entry stored with an empty reference (before those were stored as none) shows its id.
  return entry.kind === 'charge' ? entry.id : entry.reference || entry.id;
}

/** The ledger, newest first, a page at a time (the holder's own, or an account's for operators). */
export function LedgerView(props: {
  load: (query: { limit: number; before?: string }, signal: AbortSignal) => Promise<LedgerPage>;
}) {
  const { t, format } = useI18n();
  const pages = useCursorPages();
  const ledger = useAsync(
    (signal) => props.load({ limit: LEDGER_PAGE_SIZE, before: pages.cursor }, signal),
    [pages.cursor],
  );
  return (
    <section class="card" aria-labelledby="ledger-title">
      <h2 id="ledger-title">{t('wallet.ledger')}</h2>
      <AsyncView
        state={ledger}
        empty={(data) => data.data.length === 0 && pages.page === 1}
        emptyText={t('wallet.empty')}
      >
        {(data) => (
          <>
            <div class="table-wrap">
              <table data-testid="ledger-table">
                <thead>
                  <tr>
                    <th scope="col">{t('wallet.when')}</th>
                    <th scope="col">{t('wallet.kind')}</th>
                    <th scope="col" class="num">
                      {t('wallet.amount_toman')}
                    </th>
                    <th scope="col">{t('wallet.model')}</th>
                    <th scope="col">{t('wallet.reference')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.data.map((entry) => (
                    <tr key={entry.id} data-kind={entry.kind}>
                      <td class="nowrap">{format.dateTime(entry.created_at)}</td>
                      <td>
                        {t(KIND_LABEL[entry.kind])}
                        {entry.state === 'pending' ? (
                          <small class="muted block">{t('wallet.pending')}</small>
                        ) : null}
                      </td>
                      <td class={entry.amount < 0 ? 'num negative' : 'num positive'} dir="ltr">
                        {entry.amount > 0 ? '+' : ''}
                        {format.amount(entry.amount)}
                      </td>
                      <td>
                        {entry.model ? <code dir="ltr">{entry.model}</code> : '—'}
                        {entry.input_tokens != null || entry.output_tokens != null ? (
                          <small class="muted block">
                            {t('wallet.tokens', {
                              input: format.number(entry.input_tokens ?? 0),
                              output: format.number(entry.output_tokens ?? 0),
                            })}
                          </small>
                        ) : null}
                      </td>
                      <td>
                        <code dir="ltr" class="reference" title={t('wallet.reference_hint')}>
                          {referenceOf(entry)}
                        </code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager
              page={pages.page}
              hasNewer={pages.page > 1}
              hasOlder={data.next != null}
              onNewer={pages.newer}
              onOlder={() => data.next && pages.older(data.next)}
            />
          </>
        )}
      </AsyncView>
    </section>
  );
}
