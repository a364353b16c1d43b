import { useState } from 'preact/hooks';
import { discardJob, failedJobs, listQueues, retryJob } from '../../api/endpoints.ts';
import type { FailedJob } from '../../api/types.ts';
import { AsyncView, ConfirmDialog, ErrorMessage, PageHeader, useAsync } from '../../components/ui.tsx';
import { useI18n } from '../../i18n/i18n.tsx';

export function QueuesPage() {
  const { t, format } = useI18n();
  const queues = useAsync((signal) => listQueues(signal), []);
  const [open, setOpen] = useState<string>();
  return (
    <section>
      <PageHeader title={t('queues.title')}>
        <button type="button" class="button" onClick={queues.reload}>
          {t('common.refresh')}
        </button>
      </PageHeader>
      <AsyncView state={queues} empty={(data) => data.length === 0} emptyText={t('queues.empty')}>
        {(data) => (
          <div class="card table-wrap">
            <table data-testid="queues-table">
              <thead>
                <tr>
                  <th scope="col">{t('queues.queue')}</th>
                  <th scope="col" class="num">
                    {t('queues.waiting')}
                  </th>
                  <th scope="col" class="num">
                    {t('queues.active')}
                  </th>
                  <th scope="col" class="num">
                    {t('queues.delayed')}
                  </th>
                  <th scope="col" class="num">
                    {t('queues.failed')}
                  </th>
                  <th scope="col">
                    <span class="visually-hidden">{t('queues.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.map((queue) => (
                  <tr key={queue.name}>
                    <th scope="row">
                      <code dir="ltr">{queue.name}</code>
                    </th>
                    <td class="num">{format.number(queue.waiting)}</td>
                    <td class="num">{format.number(queue.active)}</td>
                    <td class="num">{format.number(queue.delayed)}</td>
                    <td class={queue.failed > 0 ? 'num negative' : 'num'}>{format.number(queue.failed)}</td>
                    <td>
                      <button
                        type="button"
                        class="button button-small"
                        aria-expanded={open === queue.name}
                        onClick={() => setOpen(open === queue.name ? undefined : queue.name)}
                      >
                        {t('queues.show_failed')}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </AsyncView>
      {open ? <FailedJobs queue={open} onChanged={queues.reload} /> : null}
    </section>
  );
}

function FailedJobs({ queue, onChanged }: { queue: string; onChanged: () => void }) {
  const { t, format } = useI18n();
  const jobs = useAsync((signal) => failedJobs(queue, signal), [queue]);
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [discarding, setDiscarding] = useState<FailedJob>();
  const retry = async (job: FailedJob) => {
    setBusy(job.id);
    setError(undefined);
    try {
      await retryJob(queue, job.id);
      jobs.reload();
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <section class="card" aria-labelledby="failed-title">
      <h2 id="failed-title">{t('queues.failed_in', { queue })}</h2>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <AsyncView state={jobs} empty={(data) => data.length === 0} emptyText={t('queues.no_failed')}>
        {(data) => (
          <ul class="job-list">
            {data.map((job) => (
              <li key={job.id} class="job">
                <div class="key-card-head">
                  <code dir="ltr">{job.id}</code>
                  <code dir="ltr" class="muted">
                    {job.name}
                  </code>
                  {job.failed_at != null ? <span class="muted">{format.dateTime(job.failed_at)}</span> : null}
                  <span class="muted">{t('queues.attempts', { n: format.number(job.attempts_made) })}</span>
                </div>
                {job.media_job_id ? (
                  <p class="muted">
                    {t('queues.media_job')} <code dir="ltr">{job.media_job_id}</code>
                  </p>
                ) : null}
                <pre class="job-error" dir="ltr">
                  {job.failed_reason || t('queues.no_error')}
                </pre>
                {job.stacktrace ? (
                  <details>
                    <summary>{t('queues.stacktrace')}</summary>
                    <pre class="job-error" dir="ltr">
                      {job.stacktrace}
                    </pre>
                  </details>
                ) : null}
                <div class="actions actions-start">
                  <button type="button" class="button" disabled={busy === job.id} onClick={() => retry(job)}>
                    {t('queues.retry')}
                  </button>
                  <button
                    type="button"
                    class="button button-danger-outline"
                    onClick={() => setDiscarding(job)}
                  >
                    {t('queues.discard')}
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </AsyncView>
      <ConfirmDialog
        open={discarding !== undefined}
        title={t('queues.discard')}
        message={<p>{t('queues.discard_confirm', { id: discarding?.id ?? '' })}</p>}
        confirmLabel={t('queues.discard')}
        danger
        onClose={() => setDiscarding(undefined)}
        onConfirm={async () => {
          if (!discarding) return;
          await discardJob(queue, discarding.id);
          jobs.reload();
          onChanged();
        }}
      />
    </section>
  );
}
