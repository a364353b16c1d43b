/** The playground's media tries: an image, speech, a video (polled, then played). */
import { useMemo, useState } from 'preact/hooks';
import type { Model, Video } from '../api/types.ts';
import { generateImage, getVideo, startVideo, synthesizeSpeech, videoContent } from '../api/v1.ts';
import { Field, Loading } from '../components/ui.tsx';
import { useI18n } from '../i18n/i18n.tsx';
import {
  Cost,
  defaultModel,
  ModelSelect,
  PromptField,
  TrySubmit,
  useObjectUrl,
  useRun,
} from './playground-parts.tsx';

const VIDEO_POLL_MS = 1500;

export function ImageTry({ models }: { models: readonly Model[] }) {
  const { t } = useI18n();
  const [model, setModel] = useState(() => defaultModel(models));
  const [prompt, setPrompt] = useState('');
  const [image, setImage] = useState<string>();
  const [cost, setCost] = useState<number>();
  const { busy, error, run } = useRun();
  const submit = (event: Event) => {
    event.preventDefault();
    setImage(undefined);
    setCost(undefined);
    void run(async (signal) => {
      const result = await generateImage({ model, prompt }, signal);
      const first = result.data[0]?.b64_json;
      setImage(first ? `data:image/png;base64,${first}` : undefined);
      setCost(result.service?.cost);
    });
  };
  return (
    <form class="form" onSubmit={submit}>
      <ModelSelect models={models} value={model} onChange={setModel} />
      <PromptField label={t('playground.prompt')} value={prompt} onInput={setPrompt} />
      <TrySubmit busy={busy} ready={prompt.trim() !== ''} label={t('playground.generate')} error={error} />
      {busy ? <Loading label={t('playground.generating')} /> : null}
      {image ? <img class="result-image" src={image} alt={t('playground.image_alt', { prompt })} /> : null}
      <Cost cost={cost} />
    </form>
  );
}

export function SpeechTry({ models }: { models: readonly Model[] }) {
  const { t } = useI18n();
  const [model, setModel] = useState(() => defaultModel(models));
  const [voice, setVoice] = useState('alloy');
  const [input, setInput] = useState('');
  const [audio, setAudio] = useObjectUrl();
  const [cost, setCost] = useState<number>();
  const { busy, error, run } = useRun();
  const submit = (event: Event) => {
    event.preventDefault();
    setAudio(undefined);
    setCost(undefined);
    void run(async (signal) => {
      const result = await synthesizeSpeech({ model, input, voice }, signal);
      setAudio(result.audio);
      setCost(result.cost);
    });
  };
  return (
    <form class="form" onSubmit={submit}>
      <ModelSelect models={models} value={model} onChange={setModel} />
      <Field label={t('playground.voice')}>
        {(id) => <input id={id} dir="ltr" value={voice} onInput={(e) => setVoice(e.currentTarget.value)} />}
      </Field>
      <PromptField label={t('playground.speech_text')} value={input} onInput={setInput} />
      <TrySubmit busy={busy} ready={input.trim() !== ''} label={t('playground.speak')} error={error} />
      {audio ? (
        // biome-ignore lint/a11y/useMediaCaption: generated speech has no caption track; its text is above.
        <audio class="result-audio" controls src={audio} />
      ) : null}
      <Cost cost={cost} />
    </form>
  );
}

export function VideoTry({ models }: { models: readonly Model[] }) {
  const { t, format } = useI18n();
  const [model, setModel] = useState(() => defaultModel(models));
  const [prompt, setPrompt] = useState('');
  const [duration, setDuration] = useState('4');
  const [video, setVideo] = useState<Video>();
  const [src, setSrc] = useObjectUrl();
  const { busy, error, run } = useRun();
  const submit = (event: Event) => {
    event.preventDefault();
    setVideo(undefined);
    setSrc(undefined);
    void run(async (signal) => {
      let current = await startVideo({ model, prompt, duration: Number(duration) }, signal);
      setVideo(current);
      while (current.status !== 'completed' && current.status !== 'failed') {
        await new Promise((resolve) => setTimeout(resolve, VIDEO_POLL_MS));
        signal.throwIfAborted();
        current = await getVideo(current.id, signal);
        setVideo(current);
      }
      if (current.status === 'completed') {
        setSrc(await videoContent(current.id, signal));
      }
    });
  };
  const progress = video?.progress ?? (video?.status === 'completed' ? 100 : 0);
  const seconds = useMemo(() => [4, 8, 12], []);
  return (
    <form class="form" onSubmit={submit}>
      <ModelSelect models={models} value={model} onChange={setModel} />
      <PromptField label={t('playground.prompt')} value={prompt} onInput={setPrompt} />
      <Field label={t('playground.duration')}>
        {(id) => (
          <select id={id} value={duration} onChange={(e) => setDuration(e.currentTarget.value)}>
            {seconds.map((n) => (
              <option key={n} value={n}>
                {t('playground.seconds', { n: format.number(n) })}
              </option>
            ))}
          </select>
        )}
      </Field>
      <TrySubmit busy={busy} ready={prompt.trim() !== ''} label={t('playground.render')} error={error} />
      {video && video.status !== 'completed' && video.status !== 'failed' ? (
        <div role="status">
          <p>{t('playground.rendering', { p: format.percent(progress) })}</p>
          <progress max={100} value={progress} aria-label={t('media.progress')} />
        </div>
      ) : null}
      {video?.status === 'failed' ? (
        <p class="state state-error" role="alert">
          {t('media.failed')} <span dir="auto">{video.error?.message}</span>
        </p>
      ) : null}
      {src ? (
        // biome-ignore lint/a11y/useMediaCaption: a generated video has no caption track; its prompt is above.
        <video class="result-video" controls src={src} />
      ) : null}
      <Cost cost={video?.status === 'completed' ? video.service?.cost : undefined} />
    </form>
  );
}
