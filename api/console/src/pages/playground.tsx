import { useState } from 'preact/hooks';
import { listModels } from '../api/endpoints.ts';
import type { Model, ModelType } from '../api/types.ts';
import { type ChatMessage, streamChat } from '../api/v1.ts';
import { ErrorMessage, Field, Loading, PageHeader, useAsync } from '../components/ui.tsx';
import { type MessageKey, useI18n } from '../i18n/i18n.tsx';
import { ImageTry, SpeechTry, VideoTry } from './playground-media.tsx';
import { Cost, defaultModel, ModelSelect, useRun } from './playground-parts.tsx';

type Tab = 'chat' | 'image' | 'speech' | 'video';
const TABS: readonly (readonly [Tab, MessageKey])[] = [
  ['chat', 'playground.tab_chat'],
  ['image', 'playground.tab_image'],
  ['speech', 'playground.tab_speech'],
  ['video', 'playground.tab_video'],
];

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
