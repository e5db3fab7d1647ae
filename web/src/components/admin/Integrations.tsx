/**
 * Integrations: the URL an incoming-webhook bot's integration posts to, ready to paste into
 * GitHub, GitLab, a Slack-compatible sender or any JSON sender:
 * `<realm url>/api/v1/external/<integration>?api_key=<key>&stream=<stream>[&topic=<topic>]`
 * (the names of src/webhooks/index.ts, as Zulip names them).
 */
import { useState } from 'preact/hooks';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import { allStreams, realmUrl } from './common';

const INTEGRATIONS = (): Array<[string, string]> => [
  ['github', 'GitHub'], ['gitlab', 'GitLab'], ['slack_incoming', t('Slack-compatible webhook')], ['json', t('JSON formatter (generic webhook)')],
];

export default function Integrations({ openBots }: { openBots: () => void }) {
  const s = useStore().state!;
  const bots = (s.reg.realm_bots ?? []).filter((b) => b.is_active && b.bot_type === 2);
  const streams = allStreams(s);
  const [botId, setBotId] = useState('');
  const [stream, setStream] = useState('');
  const [topic, setTopic] = useState('');
  const [copied, setCopied] = useState<string | null>(null);
  const bot = bots.find((b) => String(b.user_id) === botId) ?? bots[0];
  const streamName = stream || streams[0]?.name || '';
  if (!bot) {
    return (
      <div class="admin-sections">
        <p>{t('Integrations post as an incoming webhook bot. Create one first.')}</p>
        <div class="row"><button onClick={openBots}>{t('Add a new bot')}</button></div>
      </div>
    );
  }
  const url = (name: string) => {
    const q = new URLSearchParams({ api_key: bot.api_key, stream: streamName });
    if (topic.trim()) q.set('topic', topic.trim());
    return `${realmUrl(s)}/api/v1/external/${name}?${q.toString().replace(/\+/g, '%20')}`;
  };
  const copy = (name: string) => {
    void navigator.clipboard?.writeText(url(name)).then(() => setCopied(name), () => setCopied(null));
  };
  return (
    <div class="admin-sections">
      <section class="admin-section" aria-labelledby="integrations-h">
        <h3 id="integrations-h">{t('Integration URL')}</h3>
        <p class="admin-hint">{t('Paste the URL into the service\'s webhook settings; its messages go to the stream (and topic) chosen here.')}</p>
        <div class="admin-field"><label for="int-bot">{t('Bot')}</label>
          <select id="int-bot" value={String(bot.user_id)} onChange={(e) => setBotId(e.currentTarget.value)}>
            {bots.map((b) => <option key={b.user_id} value={String(b.user_id)}>{b.full_name}</option>)}
          </select>
        </div>
        <div class="admin-field"><label for="int-stream">{t('Stream')}</label>
          <select id="int-stream" value={streamName} onChange={(e) => setStream(e.currentTarget.value)}>
            {streams.map((st) => <option key={st.stream_id} value={st.name}>#{st.name}</option>)}
          </select>
        </div>
        <div class="admin-field"><label for="int-topic">{t('Topic (optional: the integration picks one when empty)')}</label>
          <input id="int-topic" value={topic} onInput={(e) => setTopic(e.currentTarget.value)} />
        </div>
      </section>
      <ul class="admin-list admin-urls">
        {INTEGRATIONS().map(([name, label]) => (
          <li key={name}>
            <label class="admin-field admin-grow" for={`int-url-${name}`}>{label}
              <input id={`int-url-${name}`} readOnly value={url(name)} onFocus={(e) => e.currentTarget.select()} />
            </label>
            <button aria-label={t('Copy the {name} URL', { name: label })} onClick={() => copy(name)}>{copied === name ? t('Copied') : t('Copy')}</button>
          </li>
        ))}
      </ul>
    </div>
  );
}
