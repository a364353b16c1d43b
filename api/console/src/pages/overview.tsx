import { useState } from 'preact/hooks';
import { getOverview } from '../api/endpoints.ts';
import { CostChart } from '../components/cost-chart.tsx';
import { AsyncView, Empty, maskedKey, PageHeader, useAsync } from '../components/ui.tsx';
import { useI18n } from '../i18n/i18n.tsx';
import { paths } from '../paths.ts';

export const PERIODS = [7, 30, 90] as const;

export function OverviewPage() {
  const { t, format } = useI18n();
  const [days, setDays] = useState<number>(30);
  const overview = useAsync((signal) => getOverview(days, signal), [days]);

  return (
    <section>
      <PageHeader title={t('overview.title')} />
      <AsyncView state={overview}>
        {(data) => {
          const low = data.balance < data.min_required;
          return (
            <>
              <div class="stats">
                <div class={low ? 'stat stat-warning' : 'stat'} data-testid="balance">
                  <span class="stat-label">{t('overview.balance')}</span>
                  <span class="stat-value">{format.money(data.balance)}</span>
                  <span class="stat-note">
                    {t('overview.min_required', { amount: format.money(data.min_required) })}
                  </span>
                  {low ? (
                    <span class="stat-note" role="alert">
                      {t('overview.below_min')}
                    </span>
                  ) : null}
                </div>
                <div class="stat" data-testid="month-spend">
                  <span class="stat-label">{t('overview.month_spend')}</span>
                  <span class="stat-value">{format.money(data.spent_this_month)}</span>
                  <a class="stat-note" href={paths.usage}>
                    {t('overview.see_usage')}
                  </a>
                </div>
              </div>

              <section class="card" aria-labelledby="daily-cost-title">
                <div class="card-header">
                  <h2 id="daily-cost-title">{t('overview.daily_cost')}</h2>
                  <fieldset class="segmented">
                    <legend class="visually-hidden">{t('overview.period')}</legend>
                    {PERIODS.map((n) => (
                      <label key={n} class={days === n ? 'segment segment-active' : 'segment'}>
                        <input
                          type="radio"
                          name="period"
                          value={n}
                          checked={days === n}
                          onChange={() => setDays(n)}
                        />
                        {t('overview.days', { n: format.number(n) })}
                      </label>
                    ))}
                  </fieldset>
                </div>
                {data.daily.length === 0 ? (
                  <Empty>{t('overview.no_usage')}</Empty>
                ) : (
                  <CostChart rows={data.daily} days={days} lastDay={data.to} />
                )}
              </section>

              <section class="card" aria-labelledby="top-keys-title">
                <h2 id="top-keys-title">{t('overview.top_keys')}</h2>
                {data.top_keys.length === 0 ? (
                  <Empty>
                    {t('overview.no_key_spend')} <a href={paths.keys}>{t('overview.manage_keys')}</a>
                  </Empty>
                ) : (
                  <div class="table-wrap">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">{t('keys.name')}</th>
                          <th scope="col">{t('keys.key')}</th>
                          <th scope="col" class="num">
                            {t('overview.spend_toman')}
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {data.top_keys.map((key) => (
                          <tr key={key.id}>
                            <td>{key.name || t('keys.unnamed')}</td>
                            <td>
                              <code dir="ltr">{maskedKey(key.last4)}</code>
                            </td>
                            <td class="num">{format.amount(key.spent)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )}
              </section>
            </>
          );
        }}
      </AsyncView>
    </section>
  );
}
