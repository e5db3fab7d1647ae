/**
 * Bots: create one (generic, incoming webhook, outgoing webhook with its endpoint and
 * format: POST /bots), and for each active bot its API key (shown on demand, regenerated
 * with POST /bots/{id}/api_key/regenerate), its owner and defaults (PATCH /bots/{id}), and
 * deactivation (DELETE /bots/{id}). register's realm_bots, kept current by `realm_bot` events.
 */
import { useState } from 'preact/hooks';
import { del, patch, post } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import type { RegisterState } from '../../types';
import { allStreams, humans, Notice, useRunner } from './common';

type Bot = NonNullable<RegisterState['realm_bots']>[number];

export const BOT_TYPES = (): Array<[number, string]> => [[1, t('Generic')], [2, t('Incoming webhook')], [3, t('Outgoing webhook')]];
const INTERFACES = (): Array<[number, string]> => [[1, t('Zulip')], [2, t('Slack\'s outgoing webhooks')]];

function CreateBot({ run }: { run: ReturnType<typeof useRunner>[1] }) {
  const [type, setType] = useState(1);
  const [name, setName] = useState('');
  const [short, setShort] = useState('');
  const [url, setUrl] = useState('');
  const [iface, setIface] = useState(1);
  const submit = async () => {
    const params: Record<string, unknown> = { full_name: name.trim(), short_name: short.trim(), bot_type: type };
    if (type === 3) Object.assign(params, { payload_url: url.trim(), interface_type: iface });
    if (await run(() => post('/bots', params), t('Bot {name} created.', { name: name.trim() }))) {
      setName('');
      setShort('');
      setUrl('');
    }
  };
  return (
    <form class="admin-section" aria-labelledby="bot-create-h" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <h3 id="bot-create-h">{t('Add a new bot')}</h3>
      <div class="admin-field"><label for="bot-type">{t('Bot type')}</label>
        <select id="bot-type" value={String(type)} onChange={(e) => setType(Number(e.currentTarget.value))}>
          {BOT_TYPES().map(([v, l]) => <option key={v} value={String(v)}>{l}</option>)}
        </select>
      </div>
      <div class="admin-field"><label for="bot-name">{t('Name')}</label><input id="bot-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} /></div>
      <div class="admin-field"><label for="bot-short">{t('Bot email (the part before -bot@)')}</label><input id="bot-short" required value={short} onInput={(e) => setShort(e.currentTarget.value)} /></div>
      {type === 3 && (
        <>
          <div class="admin-field"><label for="bot-url">{t('Endpoint URL')}</label><input id="bot-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} /></div>
          <div class="admin-field"><label for="bot-interface">{t('Outgoing webhook message format')}</label>
            <select id="bot-interface" value={String(iface)} onChange={(e) => setIface(Number(e.currentTarget.value))}>
              {INTERFACES().map(([v, l]) => <option key={v} value={String(v)}>{l}</option>)}
            </select>
          </div>
        </>
      )}
      <div class="row"><button type="submit">{t('Create bot')}</button></div>
    </form>
  );
}

function BotCard({ bot, run }: { bot: Bot; run: ReturnType<typeof useRunner>[1] }) {
  const s = useStore().state!;
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const service = bot.services[0];
  const [url, setUrl] = useState(service?.base_url ?? '');
  const [iface, setIface] = useState(service?.interface ?? 1);
  const streams = allStreams(s);
  const owners = humans(s, true);
  const id = bot.user_id;
  const name = bot.full_name;
  const change = (params: Record<string, unknown>) => void run(() => patch(`/bots/${id}`, params), t('{name} saved.', { name }));
  const streamSelect = (field: 'default_sending_stream' | 'default_events_register_stream', label: string) => (
    <div class="admin-field"><label for={`bot-${id}-${field}`}>{label}</label>
      <select id={`bot-${id}-${field}`} value={bot[field] ?? ''} onChange={(e) => change({ [field]: e.currentTarget.value })}>
        <option value="">{t('No default')}</option>
        {streams.map((st) => <option key={st.stream_id} value={st.name}>#{st.name}</option>)}
      </select>
    </div>
  );
  return (
    <li class="admin-bot" aria-labelledby={`bot-${id}-name`}>
      <h4 id={`bot-${id}-name`}>{name}</h4>
      <p class="admin-hint">{bot.email} · {BOT_TYPES().find(([v]) => v === bot.bot_type)?.[1] ?? ''}</p>
      <div class="admin-field">
        <span id={`bot-${id}-key-label`}>{t('API key')}</span>
        <code class="admin-key" aria-labelledby={`bot-${id}-key-label`}>{shown ? bot.api_key : '••••••••••••••••'}</code>
        <div class="row">
          <button aria-label={shown ? t('Hide the API key of {name}', { name }) : t('Show the API key of {name}', { name })} onClick={() => setShown(!shown)}>{shown ? t('Hide') : t('Show')}</button>
          <button aria-label={t('Regenerate the API key of {name}', { name })} onClick={() => void run(async () => { await post(`/bots/${id}/api_key/regenerate`); setShown(true); }, t('A new API key for {name}.', { name }))}>{t('Regenerate')}</button>
        </div>
      </div>
      <div class="admin-field"><label for={`bot-${id}-owner`}>{t('Bot owner')}</label>
        <select id={`bot-${id}-owner`} value={String(bot.owner_id ?? '')} onChange={(e) => change({ bot_owner_id: Number(e.currentTarget.value) })}>
          {bot.owner_id === null && <option value="">{t('No owner')}</option>}
          {owners.map((u) => <option key={u.user_id} value={String(u.user_id)}>{u.full_name}</option>)}
        </select>
      </div>
      {streamSelect('default_sending_stream', t('Default stream for messages'))}
      {streamSelect('default_events_register_stream', t('Default stream for events'))}
      <label class="admin-check"><input type="checkbox" checked={bot.default_all_public_streams} onChange={(e) => change({ default_all_public_streams: e.currentTarget.checked })} /> {t('Receive events from all public streams')}</label>
      {bot.bot_type === 3 && (
        <form onSubmit={(e) => { e.preventDefault(); change({ service_payload_url: url, service_interface: iface }); }}>
          <div class="admin-field"><label for={`bot-${id}-url`}>{t('Endpoint URL')}</label><input id={`bot-${id}-url`} type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} /></div>
          <div class="admin-field"><label for={`bot-${id}-iface`}>{t('Outgoing webhook message format')}</label>
            <select id={`bot-${id}-iface`} value={String(iface)} onChange={(e) => setIface(Number(e.currentTarget.value))}>
              {INTERFACES().map(([v, l]) => <option key={v} value={String(v)}>{l}</option>)}
            </select>
          </div>
          <div class="row"><button type="submit">{t('Save endpoint')}</button></div>
        </form>
      )}
      <div class="row">
        {confirming ? (
          <>
            <button class="danger" onClick={() => { setConfirming(false); void run(() => del(`/bots/${id}`), t('{name} was deactivated.', { name })); }}>{t('Confirm')}</button>
            <button onClick={() => setConfirming(false)}>{t('Cancel')}</button>
          </>
        ) : <button class="danger" aria-label={t('Deactivate {name}', { name })} onClick={() => setConfirming(true)}>{t('Deactivate')}</button>}
      </div>
    </li>
  );
}

export default function Bots() {
  const s = useStore().state!;
  const [note, run] = useRunner();
  const bots = (s.reg.realm_bots ?? []).filter((b) => b.is_active).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <div class="admin-sections">
      <CreateBot run={run} />
      <Notice note={note} />
      <section class="admin-section" aria-labelledby="bots-h">
        <h3 id="bots-h">{t('Active bots')}</h3>
        {bots.length === 0 ? <p>{t('No bots yet.')}</p> : <ul class="admin-list admin-bots">{bots.map((b) => <BotCard key={b.user_id} bot={b} run={run} />)}</ul>}
      </section>
    </div>
  );
}
