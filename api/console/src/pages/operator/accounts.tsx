import { useEffect, useState } from 'preact/hooks';
import { createAccount, searchAccounts } from '../../api/endpoints.ts';
import type { CreatedAccount } from '../../api/types.ts';
import {
  AsyncView,
  ErrorMessage,
  Field,
  Modal,
  PageHeader,
  Pager,
  StatusBadge,
  useAsync,
  useCursorPages,
} from '../../components/ui.tsx';
import { useI18n } from '../../i18n/i18n.tsx';
import { operatorAccount } from '../../paths.ts';
import { InvitationLink } from './invitation-link.tsx';

const PAGE_SIZE = 25;
const SEARCH_DELAY_MS = 300;

export function AccountsPage() {
  const { t, format } = useI18n();
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const pages = useCursorPages();
  const [creating, setCreating] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => {
      setQ(search.trim());
      pages.reset();
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search]);
  const accounts = useAsync(
    (signal) => searchAccounts({ q: q || undefined, limit: PAGE_SIZE, cursor: pages.cursor }, signal),
    [q, pages.cursor],
  );

  return (
    <section>
      <PageHeader title={t('operator.accounts_title')}>
        <button type="button" class="button button-primary" onClick={() => setCreating(true)}>
          {t('operator.create_account')}
        </button>
      </PageHeader>
      <div class="filters card">
        <Field label={t('operator.search')} hint={t('operator.search_hint')}>
          {(id, describedBy) => (
            <input
              id={id}
              type="search"
              dir="auto"
              aria-describedby={describedBy}
              value={search}
              onInput={(e) => setSearch(e.currentTarget.value)}
            />
          )}
        </Field>
      </div>
      <AsyncView
        state={accounts}
        empty={(data) => data.data.length === 0 && pages.page === 1}
        emptyText={q ? t('operator.no_match') : t('operator.no_accounts')}
      >
        {(data) => (
          <div class="card">
            <div class="table-wrap">
              <table data-testid="accounts-table">
                <thead>
                  <tr>
                    <th scope="col">{t('account.email')}</th>
                    <th scope="col">{t('account.name')}</th>
                    <th scope="col">{t('operator.status')}</th>
                    <th scope="col" class="num">
                      {t('operator.balance_toman')}
                    </th>
                    <th scope="col">{t('keys.created')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.data.map((account) => (
                    <tr key={account.id}>
                      <td>
                        <a href={operatorAccount(account.id)} dir="ltr">
                          {account.email}
                        </a>
                      </td>
                      <td>{account.name ?? '—'}</td>
                      <td>
                        <StatusBadge
                          status={account.status}
                          label={account.status === 'active' ? t('operator.active') : t('operator.inactive')}
                        />
                      </td>
                      <td class="num">{account.balance != null ? format.amount(account.balance) : '—'}</td>
                      <td class="nowrap">{account.created_at ? format.date(account.created_at) : '—'}</td>
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
              newerLabel={t('common.previous')}
              olderLabel={t('common.next')}
            />
          </div>
        )}
      </AsyncView>
      <Modal title={t('operator.create_account')} open={creating} onClose={() => setCreating(false)}>
        {creating ? (
          <CreateAccountForm onCreated={() => accounts.reload()} onClose={() => setCreating(false)} />
        ) : null}
      </Modal>
    </section>
  );
}

function CreateAccountForm(props: { onCreated: () => void; onClose: () => void }) {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<CreatedAccount>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      setCreated(await createAccount(email.trim(), name.trim() || undefined));
      props.onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  if (created) {
    return (
      <div>
        <p role="status">{t('operator.account_created', { email: created.account.email })}</p>
        <InvitationLink invitation={created.invitation} />
        <div class="actions">
          <a class="button" href={operatorAccount(created.account.id)}>
            {t('operator.open_account')}
          </a>
          <button type="button" class="button button-primary" onClick={props.onClose}>
            {t('common.done')}
          </button>
        </div>
      </div>
    );
  }
  return (
    <form class="form" onSubmit={submit}>
      <Field label={t('account.email')}>
        {(id) => (
          <input
            id={id}
            name="email"
            type="email"
            required
            dir="ltr"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label={t('operator.name_optional')}>
        {(id) => <input id={id} name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <div class="actions">
        <button type="button" class="button" onClick={props.onClose}>
          {t('common.cancel')}
        </button>
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? t('common.working') : t('operator.create')}
        </button>
      </div>
    </form>
  );
}
