import { PageHeader } from '../components/ui.tsx';
import { useI18n } from '../i18n/i18n.tsx';
import { BASE } from '../paths.ts';

export function NotFoundPage() {
  const { t } = useI18n();
  return (
    <section class="narrow">
      <PageHeader title={t('notfound.title')} />
      <p>{t('notfound.text')}</p>
      <a href={`${BASE}/`}>{t('notfound.home')}</a>
    </section>
  );
}
