import { useEffect, useState } from 'preact/hooks';
import { listVideos } from '../api/endpoints.ts';
import type { Video } from '../api/types.ts';
import { videoContent } from '../api/v1.ts';
import { AsyncView, ErrorMessage, PageHeader, StatusBadge, saveBlob, useAsync } from '../components/ui.tsx';
import { type MessageKey, useI18n } from '../i18n/i18n.tsx';
import { paths } from '../paths.ts';

const STATUS_LABEL: Record<Video['status'], MessageKey> = {
  queued: 'media.status_queued',
  in_progress: 'media.status_in_progress',
  completed: 'media.status_completed',
  failed: 'media.status_failed',
};
const REFRESH_MS = 3000;

/** Where the console can read a video: its own session-authenticated address when the API gives one. */
function consoleUrl(video: Video): string | undefined {
  return video.url?.startsWith('/console/') ? video.url : undefined;
}

export function MediaPage() {
  const { t } = useI18n();
  const videos = useAsync((signal) => listVideos(signal), []);
  const running = (videos.data ?? []).some((v) => v.status === 'in_progress' || v.status === 'queued');
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(videos.reload, REFRESH_MS);
    return () => clearTimeout(timer);
  }, [running, videos.data, videos.reload]);
  return (
    <section>
      <PageHeader title={t('media.title')}>
        <button type="button" class="button" onClick={videos.reload}>
          {t('common.refresh')}
        </button>
      </PageHeader>
      <AsyncView
        state={videos}
        empty={(data) => data.length === 0}
        emptyText={
          <>
            {t('media.empty')} <a href={paths.playground}>{t('media.try_playground')}</a>
          </>
        }
      >
        {(data) => (
          <ul class="media-list">
            {data.map((video) => (
              <VideoCard key={video.id} video={video} />
            ))}
          </ul>
        )}
      </AsyncView>
    </section>
  );
}

function VideoCard({ video }: { video: Video }) {
  const { t, format } = useI18n();
  const [src, setSrc] = useState<string | undefined>(() => consoleUrl(video));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const progress = video.progress ?? (video.status === 'completed' ? 100 : 0);
  const direct = consoleUrl(video);

  /** Without a console address, the video is read through /v1 with the session's playground key. */
  const fetchBlob = async (): Promise<Blob> => {
    if (direct) {
      const response = await fetch(direct, { credentials: 'same-origin' });
      if (!response.ok) throw new Error(String(response.status));
      return response.blob();
    }
    return videoContent(video.id);
  };
  const play = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setSrc(URL.createObjectURL(await fetchBlob()));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const download = async () => {
    setBusy(true);
    setError(undefined);
    try {
      saveBlob(await fetchBlob(), `${video.id}.mp4`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const canRead = video.status === 'completed';
  return (
    <li class="card media-card" data-testid="video-card">
      <div class="key-card-head">
        <code dir="ltr">{video.model}</code>
        <StatusBadge status={video.status} label={t(STATUS_LABEL[video.status])} />
      </div>
      {video.prompt ? <p dir="auto">{video.prompt}</p> : null}
      <dl class="props">
        {video.created_at != null ? (
          <div>
            <dt>{t('media.created')}</dt>
            <dd>{format.dateTime(video.created_at)}</dd>
          </div>
        ) : null}
        {video.seconds != null ? (
          <div>
            <dt>{t('media.length')}</dt>
            <dd>{t('playground.seconds', { n: format.number(video.seconds) })}</dd>
          </div>
        ) : null}
        {video.service ? (
          <div>
            <dt>{t('media.cost')}</dt>
            <dd>{format.money(video.service.cost)}</dd>
          </div>
        ) : null}
        {video.expires_at != null ? (
          <div>
            <dt>{t('media.expires')}</dt>
            <dd>{format.dateTime(video.expires_at)}</dd>
          </div>
        ) : null}
      </dl>
      {video.status === 'in_progress' || video.status === 'queued' ? (
        <div>
          <progress
            max={100}
            value={progress}
            aria-label={t('media.progress')}
            aria-valuetext={format.percent(progress)}
          />{' '}
          {format.percent(progress)}
        </div>
      ) : null}
      {video.status === 'failed' ? (
        <p class="field-error" dir="auto">
          {video.error?.message ?? t('media.failed')}
        </p>
      ) : null}
      {src && video.status === 'completed' ? (
        // biome-ignore lint/a11y/useMediaCaption: a generated video has no caption track; its prompt is above.
        <video class="result-video" controls preload="metadata" src={src} />
      ) : null}
      {video.status === 'completed' ? (
        <div class="actions actions-start">
          {src === undefined ? (
            <button type="button" class="button" disabled={!canRead || busy} onClick={play}>
              {t('media.play')}
            </button>
          ) : null}
          <button type="button" class="button" disabled={!canRead || busy} onClick={download}>
            {t('media.download')}
          </button>
          {!canRead ? <small class="hint">{t('media.need_key')}</small> : null}
        </div>
      ) : null}
      {error !== undefined ? <ErrorMessage error={error} /> : null}
    </li>
  );
}
