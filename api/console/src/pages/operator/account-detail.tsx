import { useState } from 'preact/hooks';
import { getPricePlan, setPricePlan } from '../../api/catalogue.ts';
import {
  accountKeys,
  accountLedger,
  accountPayments,
  accountUsage,
  createInvitation,
  getAccount,
  setAccountStatus,
  usageCsv,
} from '../../api/endpoints.ts';
import type { Invitation } from '../../api/types.ts';
import {
  AsyncView,
  ConfirmDialog,
  ErrorMessage,
  Field,
  Modal,
  maskedKey,
  PageHeader,
  StatusBadge,
  useAsync,
} from '../../components/ui.tsx';
import { type MessageKey, useI18n } from '../../i18n/i18n.tsx';
import { paths } from '../../paths.ts';
import { PaymentsView } from '../payments.tsx';
import { UsageView } from '../usage.tsx';
import { LedgerView } from '../wallet.tsx';
import { InvitationLink } from './invitation-link.tsx';
import { TopUpDialog } from './top-up-dialog.tsx';

type Tab = 'keys' | 'ledger' | 'usage' | 'payments';
const TABS: readonly (readonly [Tab, MessageKey])[] = [
  ['keys', 'nav.keys'],
  ['ledger', 'wallet.ledger'],
  ['usage', 'nav.usage'],
  ['payments', 'operator.payments'],
];

export function AccountDetailPage({ id }: { id?: string; params?: { id: string } }) {
  const { t, format } = useI18n();
  const accountId = id ?? '';
  const account = useAsync((signal) => getAccount(accountId, signal), [accountId]);
  const [tab, setTab] = useState<Tab>('keys');
  const [dialog, setDialog] = useState<'topup' | 'status' | 'invite' | 'reset'>();
  const [ledgerVersion, setLedgerVersion] = useState(0);
  const close = () => setDialog(undefined);

  return (
    <section>
      <p class="breadcrumb">
        <a href={paths.operatorAccounts}>{t('operator.accounts_title')}</a>
      </p>
      <AsyncView state={account}>
        {(data) => (
          <>
            <PageHeader title={data.email}>
              <button type="button" class="button button-primary" onClick={() => setDialog('topup')}>
                {t('operator.top_up')}
              </button>
              <button type="button" class="button" onClick={() => setDialog('status')}>
                {data.status === 'active' ? t('operator.deactivate') : t('operator.activate')}
              </button>
              <button type="button" class="button" onClick={() => setDialog('invite')}>
                {t('operator.new_invitation')}
              </button>
              <button type="button" class="button" onClick={() => setDialog('reset')}>
                {t('operator.new_reset')}
              </button>
            </PageHeader>
            <div class="stats">
              <div class="stat" data-testid="account-balance">
                <span class="stat-label">{t('overview.balance')}</span>
                <span class="stat-value">{data.balance != null ? format.money(data.balance) : '—'}</span>
              </div>
              <div class="stat">
                <span class="stat-label">{t('operator.status')}</span>
                <span class="stat-value">
                  <StatusBadge
                    status={data.status}
                    label={data.status === 'active' ? t('operator.active') : t('operator.inactive')}
                  />
                </span>
                {data.name ? <span class="stat-note">{data.name}</span> : null}
              </div>
              <PricePlan accountId={data.id} />
            </div>
            <TopUpDialog
              open={dialog === 'topup'}
              account={data}
              onClose={close}
              onDone={() => {
                account.reload();
                setLedgerVersion((n) => n + 1);
              }}
            />
            <ConfirmDialog
              open={dialog === 'status'}
              title={data.status === 'active' ? t('operator.deactivate') : t('operator.activate')}
              message={
                <p>
                  {data.status === 'active'
                    ? t('operator.deactivate_confirm', { email: data.email })
                    : t('operator.activate_confirm', { email: data.email })}
                </p>
              }
              confirmLabel={data.status === 'active' ? t('operator.deactivate') : t('operator.activate')}
              danger={data.status === 'active'}
              onClose={close}
              onConfirm={async () => {
                await setAccountStatus(data.id, data.status === 'active' ? 'inactive' : 'active');
                account.reload();
              }}
            />
            <InvitationDialog
              open={dialog === 'invite' || dialog === 'reset'}
              purpose={dialog === 'reset' ? 'reset' : 'invite'}
              accountId={data.id}
              onClose={close}
            />
          </>
        )}
      </AsyncView>
      <div class="tabs" role="tablist" aria-label={t('operator.account_sections')}>
        {TABS.map(([value, label]) => (
          <button
            key={value}
            type="button"
            role="tab"
            id={`acct-tab-${value}`}
            aria-selected={tab === value}
            aria-controls="acct-panel"
            class={tab === value ? 'tab tab-active' : 'tab'}
            onClick={() => setTab(value)}
          >
            {t(label)}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="acct-panel" aria-labelledby={`acct-tab-${tab}`}>
        {tab === 'keys' ? <AccountKeys accountId={accountId} /> : null}
        {tab === 'ledger' ? (
          <LedgerView key={ledgerVersion} load={(query, signal) => accountLedger(accountId, query, signal)} />
        ) : null}
        {tab === 'payments' ? <PaymentsView load={(signal) => accountPayments(accountId, signal)} /> : null}
        {tab === 'usage' ? (
          <UsageView
            load={(query, signal) => accountUsage(accountId, query, signal)}
            csv={(query) => usageCsv(query, accountId)}
          />
        ) : null}
      </div>
    </section>
  );
}

function AccountKeys({ accountId }: { accountId: string }) {
  const { t, format } = useI18n();
  const keys = useAsync((signal) => accountKeys(accountId, signal), [accountId]);
  return (
    <div class="card">
      <AsyncView state={keys} empty={(data) => data.length === 0} emptyText={t('keys.empty_operator')}>
        {(data) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('keys.name')}</th>
                  <th scope="col">{t('keys.key')}</th>
                  <th scope="col">{t('operator.status')}</th>
                  <th scope="col" class="num">
                    {t('keys.rate_limit')}
                  </th>
                  <th scope="col">{t('keys.monthly_cap')}</th>
                  <th scope="col">{t('keys.created')}</th>
                </tr>
              </thead>
              <tbody>
                {data.map((key) => (
                  <tr key={key.id}>
                    <td>{key.name || t('keys.unnamed')}</td>
                    <td>
                      <code dir="ltr">{maskedKey(key.last4)}</code>
                    </td>
                    <td>
                      <StatusBadge status={key.state} label={t(`keys.state_${key.state}` as MessageKey)} />
                    </td>
                    <td class="num">{format.number(key.rate_limit)}</td>
                    <td>
                      {key.monthly_cap == null
                        ? t('keys.no_cap')
                        : t('keys.spent_of', {
                            amount: format.money(key.spent_this_month),
                            cap: format.money(key.monthly_cap),
                          })}
                    </td>
                    <td class="nowrap">{format.date(key.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </AsyncView>
    </div>
  );
}

function InvitationDialog(props: {
  open: boolean;
  purpose: 'invite' | 'reset';
  accountId: string;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const [invitation, setInvitation] = useState<Invitation>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const close = () => {
    setInvitation(undefined);
    setError(undefined);
    props.onClose();
  };
  const create = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setInvitation({ purpose: props.purpose, ...(await createInvitation(props.accountId, props.purpose)) });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const title = props.purpose === 'reset' ? t('operator.new_reset') : t('operator.new_invitation');
  return (
    <Modal title={title} open={props.open} onClose={close}>
      {invitation ? (
        <>
          <InvitationLink invitation={invitation} />
          <div class="actions">
            <button type="button" class="button button-primary" onClick={close}>
              {t('common.done')}
            </button>
          </div>
        </>
      ) : (
        <>
          <p>{props.purpose === 'reset' ? t('operator.reset_explain') : t('operator.invitation_explain')}</p>
          {error !== undefined ? <ErrorMessage error={error} /> : null}
          <div class="actions">
            <button type="button" class="button" onClick={close}>
              {t('common.cancel')}
            </button>
            <button type="button" class="button button-primary" disabled={busy} onClick={create}>
              {busy ? t('common.working') : t('operator.make_link')}
            </button>
          </div>
        </>
      )}
    </Modal>
  );
}

/** The account's price plan: its prices × `price_multiplier` (docs/catalogue.md). */
function PricePlan({ accountId }: { accountId: string }) {
  const { t, format } = useI18n();
  const plan = useAsync((signal) => getPricePlan(accountId, signal), [accountId]);
  const [value, setValue] = useState<string>();
  const [error, setError] = useState<unknown>();
  const save = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      await setPricePlan(accountId, Number(value));
      setValue(undefined);
      plan.reload();
    } catch (err) {
      setError(err);
    }
  };
  const current = plan.data?.price_multiplier;
  return (
    <form class="stat" onSubmit={save} data-testid="price-plan">
      <span class="stat-label">{t('catalogue.price_plan')}</span>
      <span class="stat-value">{current === undefined ? '—' : `× ${format.amount(current)}`}</span>
      <span class="stat-note">{t('catalogue.price_plan_note')}</span>
      <Field label={t('catalogue.price_multiplier')}>
        {(id) => (
          <input
            id={id}
            dir="ltr"
            inputMode="decimal"
            value={value ?? (current === undefined ? '' : String(current))}
            onInput={(event) => setValue((event.target as HTMLInputElement).value)}
          />
        )}
      </Field>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <button type="submit" class="button button-small">
        {t('common.save')}
      </button>
    </form>
  );
}
