/**
 * What bots keep and what people left for later: outgoing-webhook services (with new tokens:
 * an export never carries one), bot storage, saved snippets, and messages scheduled but not
 * yet sent.
 */
import type { Tx } from '../../actions/transaction.js';
import { botServices } from '../../store/repos/bot-services.js';
import { botStorage } from '../../store/repos/bot-storage.js';
import { savedSnippets } from '../../store/repos/saved-snippets.js';
import { scheduledMessages } from '../../store/repos/scheduled-messages.js';
import { generateApiKey } from '../../lib/secrets.js';
import { isUrl } from '../../lib/url.js';
import { RecipientType } from '../../lib/recipient-type.js';
import { renderMessage } from '../../markdown/bounded.js';
import { importRenderContexts } from '../../reads/render-context.js';
import { field } from './ids.js';
import { tableOf, type LoadState } from './state.js';

export async function loadBotData(tx: Tx, s: LoadState): Promise<void> {
  for (const svc of tableOf(s, 'zerver_service')) {
    if (!s.users.has(svc.user_profile) || typeof svc.base_url !== 'string' || !isUrl(svc.base_url)) continue;
    await botServices.insert(tx.db, {
      bot_id: s.users.get(svc.user_profile, 'a bot service'), name: field.str(svc, 'name', 'a bot service', '').slice(0, 100),
      base_url: svc.base_url, interface: svc.interface === 2 ? 2 : 1, token: generateApiKey(),
    });
  }
  for (const d of tableOf(s, 'zerver_botstoragedata')) {
    if (!s.users.has(d.bot_profile) || typeof d.key !== 'string' || typeof d.value !== 'string') continue;
    await botStorage.insert(tx.db, s.users.get(d.bot_profile, 'bot storage'), { key: d.key, value: d.value });
  }
  for (const x of tableOf(s, 'zerver_savedsnippet')) {
    if (!s.users.has(x.user_profile) || typeof x.title !== 'string' || typeof x.content !== 'string') continue;
    await savedSnippets.insert(tx.db, {
      user_id: s.users.get(x.user_profile, 'a saved snippet'), title: x.title, content: x.content,
      date_created: field.time(x, 'date_created', s.realm.date_created),
    });
  }
}

/** Scheduled messages still to be sent; those delivered or failed are history the messages already hold. */
export async function loadScheduled(tx: Tx, s: LoadState): Promise<void> {
  const rows = tableOf(s, 'zerver_scheduledmessage');
  if (rows.length === 0) return;
  const contexts = await importRenderContexts(tx.db, s.realm, s.privateMembers, s.ctx.config.featureLevel);
  for (const m of rows) {
    if (m.delivered === true || m.failed === true || !s.users.has(m.sender)) continue;
    const r = s.recipients.get(Number(m.recipient));
    if (!r) continue;
    const sender = s.users.get(m.sender, 'a scheduled message');
    const content = field.str(m, 'content', 'a scheduled message', '');
    const isStream = r.type === RecipientType.STREAM && r.streamId !== null;
    const others = (r.members ?? []).filter((id) => id !== sender);
    await scheduledMessages.insert(tx.db, {
      realm_id: s.realm.id, sender_id: sender, type: isStream ? 'stream' : 'private', stream_id: isStream ? r.streamId : null,
      recipient: isStream ? '[]' : JSON.stringify(others.length > 0 ? others : [sender]),
      topic: isStream ? field.str(m, 'subject', 'a scheduled message', '') : '', content,
      // Rendered again when it is sent; this is what the list of scheduled messages shows meanwhile.
      rendered_content: (await renderMessage(content, contexts(sender)).catch(() => ({ html: '' }))).html,
      client: s.clients.get(Number(m.sending_client)) ?? 'Imported',
      scheduled_timestamp: field.time(m, 'scheduled_timestamp', 0), read_by_sender: m.read_by_sender === false ? 0 : 1,
      delivered_message_id: null, failure_message: null, claimed_until: null,
    });
  }
}
