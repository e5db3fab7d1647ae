/**
 * Code playgrounds, as Zulip's "Code playgrounds" settings: the organization's list (name,
 * language, URL), the form to add one (POST /realm/playgrounds) and each one's deletion
 * (DELETE /realm/playgrounds/{id}). The URL is a `url_template` with the variable {code}
 * from feature level 196 and a `url_prefix` the code is appended to before it; register's
 * entries have the same key. The `realm_playgrounds` events keep the list current.
 */
import { useState } from 'preact/hooks';
import { del, post } from '../../api';
import { useStore } from '../../hooks';
import { t } from '../../i18n';
import './admin2.css';
import './admin-icon.css';
import { ConfirmButton } from './ConfirmButton';
import { Notice, useRunner } from './common';

type Playground = { id: number; name: string; pygments_language: string; url_template?: string; url_prefix?: string };

const TEMPLATE_LEVEL = 196;
/** A Pygments language name: the same in every language. */
const LANGUAGE_EXAMPLE = 'rust';

export default function Playgrounds() {
  const s = useStore().state!;
  const level = s.reg.zulip_feature_level ?? 0;
  const templated = level >= TEMPLATE_LEVEL;
  const list = (s.reg.realm_playgrounds ?? []) as Playground[];
  const [language, setLanguage] = useState('');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [note, run] = useRunner();
  const add = async () => {
    const params = { name, pygments_language: language, [templated ? 'url_template' : 'url_prefix']: url };
    if (await run(() => post('/realm/playgrounds', params), t('Playground added.'))) { setLanguage(''); setName(''); setUrl(''); }
  };
  const urlLabel = templated ? t('URL template') : t('URL prefix');
  const example = templated ? 'https://play.rust-lang.org/?code={code}' : 'https://play.rust-lang.org/?code=';
  return (
    <div class="admin-sections">
      <form class="admin-section" aria-labelledby="pg-new-h" onSubmit={(e) => { e.preventDefault(); void add(); }}>
        <h3 id="pg-new-h">{t('Add a new code playground')}</h3>
        <p class="admin-hint">{t('Code playgrounds let people open a code block of a given language in an external site, with one click.')}</p>
        <div class="admin-field"><label for="pg-language">{t('Language')}</label>
          <input id="pg-language" value={language} placeholder={LANGUAGE_EXAMPLE} onInput={(e) => setLanguage(e.currentTarget.value)} /></div>
        <div class="admin-field"><label for="pg-name">{t('Name')}</label>
          <input id="pg-name" value={name} placeholder={t('Rust playground')} onInput={(e) => setName(e.currentTarget.value)} /></div>
        <div class="admin-field"><label for="pg-url">{urlLabel}</label>
          <input id="pg-url" value={url} placeholder={example} onInput={(e) => setUrl(e.currentTarget.value)} /></div>
        <div class="row"><button type="submit" disabled={language === '' || name === '' || url === ''}>{t('Add code playground')}</button></div>
        <Notice note={note} />
      </form>
      <section class="admin-section" aria-labelledby="pg-h">
        <h3 id="pg-h">{t('Code playgrounds')}</h3>
        {list.length === 0 ? <p>{t('There are no code playgrounds yet.')}</p> : (
          <ul class="admin-list admin-bots">
            {list.map((p) => (
              <li key={p.id}>
                <div class="admin-inline">
                  <span class="admin-grow"><strong>{p.name}</strong> <code class="admin-key">{p.pygments_language}</code><br />
                    <code class="admin-key pg-url">{p.url_template ?? p.url_prefix ?? ''}</code></span>
                  <ConfirmButton label={t('Delete')} aria={t('Delete {name}', { name: p.name })} question={t('Delete {name}?', { name: p.name })}
                    act={() => void run(() => del(`/realm/playgrounds/${p.id}`), t('Deleted'))} />
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
