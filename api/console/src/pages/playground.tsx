import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { listModels } from '../api/endpoints.ts';
import type { Model, ModelType, Video } from '../api/types.ts';
import {
  type ChatMessage,
  generateImage,
  getVideo,
  startVideo,
  streamChat,
  synthesizeSpeech,
  videoContent,
} from '../api/v1.ts';
import { ErrorMessage, Field, Loading, PageHeader, useAsync } from '../components/ui.tsx';
import { type MessageKey, useI18n } from '../i18n/i18n.tsx';

type Tab = 'chat' | 'image' | 'speech' | 'video';
const TABS: readonly (readonly [Tab, MessageKey])[] = [
  ['chat', 'playground.tab_chat'],
  ['image', 'playground.tab_image'],
  ['speech', 'playground.tab_speech'],
  ['video', 'playground.tab_video'],
];
const VIDEO_POLL_MS = 1500;

/** The default rate limit of a key, the playground key's (docs/console.md, "Playground"). */
const PLAYGROUND_RATE_LIMIT = 60;

export function PlaygroundPage() {
  const { t, format } = useI18n();
  const [tab, setTab] = useState<Tab>('chat');
  const models = useAsync((signal) => listModels(signal), []);

  return (
    <section>
      <PageHeader title={t('playground.title')} />
      <p class="note" data-testid="playground-note">
        {t('playground.note', { n: format.number(PLAYGROUND_RATE_LIMIT) })}
      </p>
      <div class="tabs" role="tablist" aria-label={t('playground.kind')}>
        {TABS.map(([value, label]) => (
          <button
            key={value}
            type="button"
            role="tab"
            id={`pg-tab-${value}`}
            aria-selected={tab === value}
            aria-controls="pg-panel"
            class={tab === value ? 'tab tab-active' : 'tab'}
            onClick={() => setTab(value)}
          >
            {t(label)}
          </button>
        ))}
      </div>
      <div class="card" role="tabpanel" id="pg-panel" aria-labelledby={`pg-tab-${tab}`}>
        {models.status === 'error' ? (
          <ErrorMessage error={models.error} onRetry={models.reload} />
        ) : models.data === undefined ? (
          <Loading />
        ) : tab === 'chat' ? (
          <ChatTry models={ofType(models.data, 'chat')} />
        ) : tab === 'image' ? (
          <ImageTry models={ofType(models.data, 'image')} />
        ) : tab === 'speech' ? (
          <SpeechTry models={ofType(models.data, 'tts')} />
        ) : (
          <VideoTry models={ofType(models.data, 'video')} />
        )}
      </div>
    </section>
  );
}

function ofType(models: readonly Model[], type: ModelType): readonly Model[] {
  return models.filter((model) => model.type === type);
}

/** A model select, preferring the offline demo model so a first try costs nothing real. */
function ModelSelect(props: { models: readonly Model[]; value: string; onChange: (id: string) => void }) {
  const { t } = useI18n();
  return (
    <Field label={t('playground.model')}>
      {(id) => (
        <select
          id={id}
          name="model"
          value={props.value}
          onChange={(e) => props.onChange(e.currentTarget.value)}
        >
          {props.models.map((model) => (
            <option key={model.id} value={model.id}>
              {model.id}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function defaultModel(models: readonly Model[]): string {
  return models.find((model) => model.id.startsWith('demo/'))?.id ?? models[0]?.id ?? '';
}

function useRun() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const controller = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => controller.current?.abort(), []);
  const run = async (work: (signal: AbortSignal) => Promise<void>) => {
    controller.current?.abort();
    const current = new AbortController();
    controller.current = current;
    setBusy(true);
    setError(undefined);
    try {
      await work(current.signal);
    } catch (err) {
      if (!(err instanceof DOMException && err.name === 'AbortError')) setError(err);
    } finally {
      if (controller.current === current) setBusy(false);
    }
  };
  const stop = () => {
    controller.current?.abort();
    setBusy(false);
  };
  return { busy, error, run, stop };
}

/** The submit row of a media try: the button, then the error of the last run. */
function TrySubmit(props: { busy: boolean; ready: boolean; label: string; error: unknown }) {
  const { t } = useI18n();
  const { busy, ready, label, error } = props;
  return (
    <>
      <div class="actions actions-start">
        <button type="submit" class="button button-primary" disabled={busy || !ready}>
          {busy ? t('common.working') : label}
        </button>
      </div>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
    </>
  );
}

function Cost({ cost }: { cost: number | undefined }) {
  const { t, format } = useI18n();
  if (cost === undefined) return null;
  return (
    <p class="cost" data-testid="playground-cost" role="status">
      {t('playground.cost', { amount: format.money(cost) })}
    </p>
  );
}

/** The text a media try sends (a prompt, or the words to speak). */
function PromptField(props: { label: string; value: string; onInput: (value: string) => void }) {
  return (
    <Field label={props.label}>
      {(id) => (
        <textarea
          id={id}
          rows={2}
          dir="auto"
          required
          value={props.value}
          onInput={(e) => props.onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** An object URL for the latest blob of a try, revoked when replaced or when the try goes away. */
function useObjectUrl(): [string | undefined, (blob: Blob | undefined) => void] {
  const [url, setUrl] = useState<string>();
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  return [url, (blob) => setUrl(blob === undefined ? undefined : URL.createObjectURL(blob))];
}

function ChatTry({ models }: { models: readonly Model[] }) {
  const { t } = useI18n();
  const [model, setModel] = useState(() => defaultModel(models));
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [draft, setDraft] = useState('');
  const [streaming, setStreaming] = useState('');
  const [cost, setCost] = useState<number>();
  const { busy, error, run, stop } = useRun();

  const send = (event: Event) => {
    event.preventDefault();
    const text = draft.trim();
    if (text === '') return;
    const history: ChatMessage[] = [...messages, { role: 'user', content: text }];
    setMessages(history);
    setDraft('');
    setStreaming('');
    setCost(undefined);
    let answer = '';
    void run(async (signal) => {
      try {
        const result = await streamChat(
          { model, messages: history },
          {
            onDelta: (delta) => {
              answer += delta;
              setStreaming(answer);
            },
          },
          signal,
        );
        setCost(result.service?.cost);
      } finally {
        if (answer !== '') setMessages((list) => [...list, { role: 'assistant', content: answer }]);
        setStreaming('');
      }
    });
  };

  return (
    <form class="form" onSubmit={send}>
      <ModelSelect models={models} value={model} onChange={setModel} />
      <div class="chat-log" aria-live="polite" data-testid="chat-log">
        {messages.length === 0 && !busy ? <p class="muted">{t('playground.chat_empty')}</p> : null}
        {messages.map((message, i) => (
          <div key={i} class={`bubble bubble-${message.role}`}>
            <span class="visually-hidden">
              {message.role === 'user' ? t('playground.you') : t('playground.assistant')}:
            </span>
            <p dir="auto">{message.content}</p>
          </div>
        ))}
        {busy ? (
          <div class="bubble bubble-assistant" aria-busy="true">
            <p dir="auto">{streaming || t('playground.thinking')}</p>
          </div>
        ) : null}
      </div>
      <Cost cost={cost} />
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <Field label={t('playground.message')}>
        {(id) => (
          <textarea
            id={id}
            name="message"
            rows={3}
            dir="auto"
            value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) send(e);
            }}
          />
        )}
      </Field>
      <div class="actions actions-start">
        {busy ? (
          <button type="button" class="button" onClick={stop}>
            {t('playground.stop')}
          </button>
        ) : (
          <button type="submit" class="button button-primary" disabled={draft.trim() === ''}>
            {t('playground.send')}
          </button>
        )}
        <button
          type="button"
          class="button"
          disabled={busy || messages.length === 0}
          onClick={() => {
            setMessages([]);
            setCost(undefined);
          }}
        >
          {t('playground.clear')}
        </button>
      </div>
    </form>
  );
}

function ImageTry({ models }: { models: readonly Model[] }) {
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

function SpeechTry({ models }: { models: readonly Model[] }) {
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

function VideoTry({ models }: { models: readonly Model[] }) {
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
