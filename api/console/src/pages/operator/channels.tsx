import { useState } from 'preact/hooks';
import { ApiError } from '../../api/client.ts';
import {
  createChannel,
  deleteChannel,
  listChannels,
  testChannel,
  updateChannel,
} from '../../api/endpoints.ts';
import type { Channel, ChannelInput, ChannelTest } from '../../api/types.ts';
import {
  AsyncView,
  ConfirmDialog,
  ErrorMessage,
  Field,
  Modal,
  PageHeader,
  StatusBadge,
  useAsync,
} from '../../components/ui.tsx';
import { type MessageKey, useI18n } from '../../i18n/i18n.tsx';

const PROVIDERS = [
  'openai',
  'anthropic',
  'google',
  'deepseek',
  'xai',
  'mistral',
  'groq',
  'elevenlabs',
  'runway',
];

const STATUS_KEYS: Record<Channel['status'], MessageKey> = {
  healthy: 'channels.status_healthy',
  cooling_down: 'channels.status_cooling_down',
  auto_disabled: 'channels.status_auto_disabled',
  disabled: 'channels.status_disabled',
};

/** Operators' upstream channels: state, last hour's figures, create, edit, test, toggle, delete. */
export function ChannelsPage() {
  const { t, format } = useI18n();
  const channels = useAsync((signal) => listChannels(signal), []);
  const [editing, setEditing] = useState<Channel | 'new'>();
  const [deleting, setDeleting] = useState<Channel>();
  const [tests, setTests] = useState<Record<string, ChannelTest | 'running'>>({});
  const [error, setError] = useState<unknown>();

  const runTest = async (channel: Channel) => {
    setTests((all) => ({ ...all, [channel.id]: 'running' }));
    try {
      const result = await testChannel(channel.id);
      setTests((all) => ({ ...all, [channel.id]: result }));
      channels.reload();
    } catch (err) {
      setTests(({ [channel.id]: _, ...rest }) => rest);
      setError(err);
    }
  };
  const toggle = async (channel: Channel) => {
    setError(undefined);
    try {
      await updateChannel(channel.id, { enabled: !channel.enabled });
      channels.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section>
      <PageHeader title={t('channels.title')}>
        <button type="button" class="button" onClick={channels.reload}>
          {t('common.refresh')}
        </button>
        <button
          type="button"
          class="button button-primary"
          onClick={() => setEditing('new')}
          data-testid="channel-new"
        >
          {t('channels.new')}
        </button>
      </PageHeader>
      <p class="hint">{t('channels.explain')}</p>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <AsyncView state={channels} empty={(data) => data.length === 0} emptyText={t('channels.empty')}>
        {(data) => (
          <div class="card table-wrap table-contained">
            <table class="stacked-table" data-testid="channels-table">
              <thead>
                <tr>
                  <th scope="col">{t('channels.name')}</th>
                  <th scope="col">{t('channels.status')}</th>
                  <th scope="col" class="num">
                    {t('channels.weight_priority')}
                  </th>
                  <th scope="col" class="num">
                    {t('channels.last_hour')}
                  </th>
                  <th scope="col">
                    <span class="visually-hidden">{t('channels.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.map((channel) => {
                  const test = tests[channel.id];
                  const readOnly = channel.source === 'environment';
                  return (
                    <tr key={channel.id} data-testid={`channel-${channel.name}`}>
                      <th scope="row">
                        <div>{channel.name}</div>
                        <small class="hint">
                          <code dir="ltr">{channel.provider}</code> ·{' '}
                          <bdi dir="ltr">
                            <code>{`••••${channel.key_last4}`}</code>
                          </bdi>
                          {readOnly ? ` · ${t('channels.environment')}` : ''}
                        </small>
                      </th>
                      <td data-label={t('channels.status')}>
                        <StatusBadge status={channel.status} label={t(STATUS_KEYS[channel.status])} />
                        {channel.status_reason ? <div class="hint">{channel.status_reason}</div> : null}
                        {channel.cooldown_until ? (
                          <div class="hint">
                            {t('channels.until', { time: format.dateTime(channel.cooldown_until) })}
                          </div>
                        ) : null}
                        {test === 'running' ? (
                          <div class="hint" role="status">
                            {t('channels.testing')}
                          </div>
                        ) : test ? (
                          <div
                            class={test.ok ? 'hint positive' : 'hint negative'}
                            role="status"
                            data-testid="channel-test-result"
                          >
                            {test.ok
                              ? t('channels.test_ok', { ms: format.number(test.latency_ms) })
                              : t('channels.test_failed', {
                                  status: test.status === undefined ? '—' : String(test.status),
                                  error: test.error ?? '',
                                })}
                          </div>
                        ) : null}
                      </td>
                      <td class="num" data-label={t('channels.weight_priority')}>
                        {format.number(channel.weight)} / {format.number(channel.priority)}
                      </td>
                      <td class="num" data-label={t('channels.last_hour')}>
                        <div>
                          {t('channels.figures', {
                            requests: format.number(channel.requests),
                            failures: format.number(channel.failures),
                          })}
                        </div>
                        {channel.p50_latency_ms === null ? null : (
                          <div class="hint">
                            {t('channels.p50', { ms: format.number(channel.p50_latency_ms) })}
                          </div>
                        )}
                      </td>
                      <td>
                        <div class="actions">
                          <button
                            type="button"
                            class="button button-small"
                            onClick={() => runTest(channel)}
                            disabled={test === 'running'}
                          >
                            {t('channels.test')}
                          </button>
                          {readOnly ? null : (
                            <>
                              <button
                                type="button"
                                class="button button-small"
                                onClick={() => toggle(channel)}
                              >
                                {channel.enabled ? t('channels.disable') : t('channels.enable')}
                              </button>
                              <button
                                type="button"
                                class="button button-small"
                                onClick={() => setEditing(channel)}
                              >
                                {t('channels.edit')}
                              </button>
                              <button
                                type="button"
                                class="button button-small button-danger"
                                onClick={() => setDeleting(channel)}
                              >
                                {t('channels.delete')}
                              </button>
                            </>
                          )}
                        </div>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </AsyncView>
      <Modal
        title={editing === 'new' ? t('channels.new') : t('channels.edit')}
        open={editing !== undefined}
        onClose={() => setEditing(undefined)}
      >
        {editing !== undefined ? (
          <ChannelForm
            channel={editing === 'new' ? undefined : editing}
            onSaved={() => {
              setEditing(undefined);
              channels.reload();
            }}
          />
        ) : null}
      </Modal>
      <DeleteChannel channel={deleting} onClose={() => setDeleting(undefined)} onDeleted={channels.reload} />
    </section>
  );
}

function DeleteChannel(props: { channel: Channel | undefined; onClose: () => void; onDeleted: () => void }) {
  const { t } = useI18n();
  const [force, setForce] = useState(false);
  const channel = props.channel;
  return (
    <ConfirmDialog
      open={channel !== undefined}
      title={t('channels.delete')}
      danger
      confirmLabel={force ? t('channels.delete_force') : t('channels.delete')}
      message={<p>{t('channels.delete_confirm', { name: channel?.name ?? '' })}</p>}
      onClose={() => {
        setForce(false);
        props.onClose();
      }}
      onConfirm={async () => {
        if (channel === undefined) return;
        try {
          await deleteChannel(channel.id, force);
        } catch (err) {
          if (err instanceof ApiError && err.code === 'channel_has_renders' && !force) {
            setForce(true);
            throw err;
          }
          throw err;
        }
        setForce(false);
        props.onDeleted();
      }}
    />
  );
}

function ChannelForm(props: { channel?: Channel; onSaved: () => void }) {
  const { t } = useI18n();
  const existing = props.channel;
  const [provider, setProvider] = useState(existing?.provider ?? 'openai');
  const [name, setName] = useState(existing?.name ?? '');
  const [apiKey, setApiKey] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [weight, setWeight] = useState(String(existing?.weight ?? 1));
  const [priority, setPriority] = useState(String(existing?.priority ?? 0));
  const [models, setModels] = useState(existing?.models?.join(', ') ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const modelList = models
      .split(/[\s,]+/)
      .map((m) => m.trim())
      .filter(Boolean);
    const body: ChannelInput = {
      provider,
      name,
      weight: Number(weight),
      priority: Number(priority),
      models: modelList.length === 0 ? null : modelList,
      ...(apiKey === '' ? {} : { api_key: apiKey }),
      ...(baseUrl === '' ? (existing ? {} : {}) : { base_url: baseUrl }),
    };
    try {
      if (existing) await updateChannel(existing.id, body);
      else await createChannel(body);
      props.onSaved();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="form" onSubmit={submit} data-testid="channel-form">
      <Field label={t('channels.provider')}>
        {(id) => (
          <select id={id} value={provider} onChange={(e) => setProvider(e.currentTarget.value)} dir="ltr">
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('channels.name')}>
        {(id) => (
          <input
            id={id}
            required
            maxLength={100}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field
        label={t('channels.api_key')}
        hint={existing ? t('channels.api_key_keep') : t('channels.api_key_hint')}
      >
        {(id, describedBy) => (
          <input
            id={id}
            type="password"
            autocomplete="off"
            dir="ltr"
            required={!existing}
            aria-describedby={describedBy}
            value={apiKey}
            onInput={(e) => setApiKey(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label={t('channels.base_url')} hint={existing ? existing.base_url : t('channels.base_url_hint')}>
        {(id, describedBy) => (
          <input
            id={id}
            type="url"
            dir="ltr"
            aria-describedby={describedBy}
            value={baseUrl}
            onInput={(e) => setBaseUrl(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label={t('channels.weight')} hint={t('channels.weight_hint')}>
        {(id, describedBy) => (
          <input
            id={id}
            type="number"
            min={1}
            max={1000}
            step={1}
            dir="ltr"
            aria-describedby={describedBy}
            value={weight}
            onInput={(e) => setWeight(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label={t('channels.priority')} hint={t('channels.priority_hint')}>
        {(id, describedBy) => (
          <input
            id={id}
            type="number"
            step={1}
            dir="ltr"
            aria-describedby={describedBy}
            value={priority}
            onInput={(e) => setPriority(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label={t('channels.models')} hint={t('channels.models_hint')}>
        {(id, describedBy) => (
          <input
            id={id}
            dir="ltr"
            aria-describedby={describedBy}
            value={models}
            onInput={(e) => setModels(e.currentTarget.value)}
          />
        )}
      </Field>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <div class="actions">
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? t('common.working') : t('common.save')}
        </button>
      </div>
    </form>
  );
}
