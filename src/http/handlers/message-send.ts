import { route, type AuthedRequest, type Route } from '../route.js';
import { Bool, Opt, Str, Type, type ArgsOf } from '../../schemas/params.js';
import { messageKind } from '../../lib/message-type.js';
import { badRequest, missingArgument } from '../../errors.js';
import { sendMessageResult, type Addressee } from '../../actions/message-send.js';
import { clientName } from '../../lib/client-name.js';
import { capList } from '../params.js';
import { LIST_LIMITS } from '../../lib/limits.js';
import { sentNoTopicToEmpty } from '../../lib/empty-topic.js';

// A stream name is rarely JSON, and a failed JSON.parse builds an exception with a stack
// (about 5 % of a send's time on the request thread). Only text that can be JSON is parsed.
const MAY_BE_JSON = /^\s*[[{"\d-]/;

function parseJson(raw: string): unknown {
  if (!MAY_BE_JSON.test(raw)) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** `to` for a stream: a name, an id, or either JSON-encoded, alone or in a one-element list. */
function streamAddressee(raw: string): Addressee {
  if (/^\d+$/.test(raw.trim())) return { kind: 'stream', id: Number(raw.trim()) };
  let v = parseJson(raw);
  if (Array.isArray(v)) {
    if (v.length !== 1) throw badRequest('Cannot send to multiple streams');
    v = v[0];
  }
  if (typeof v === 'number' && Number.isInteger(v)) return { kind: 'stream', id: v };
  if (typeof v === 'string') return { kind: 'stream', name: v };
  return { kind: 'stream', name: raw };
}

/** `to` for people: a JSON list of ids or of emails, or emails separated by commas. */
function privateAddressee(raw: string): Addressee {
  const v = parseJson(raw);
  const list = capList('to', Array.isArray(v) ? v : typeof v === 'number' ? [v] : typeof v === 'string' ? v.split(',') : raw.split(','), LIST_LIMITS.recipients);
  if (list.every((x) => typeof x === 'number' && Number.isInteger(x))) return { kind: 'private', ids: list as number[] };
  if (list.every((x) => typeof x === 'string')) return { kind: 'private', emails: (list as string[]).map((e) => e.trim()).filter((e) => e !== '') };
  throw badRequest('Invalid data type for recipients');
}

const SEND_PARAMS = {
  type: Str({ description: 'stream or private (Zulip also accepts direct and channel)' }),
  to: Opt(Str({ description: 'A stream: its name or id. People: a JSON list of ids or emails, or emails separated by commas. Without it, a bot sends to its default stream' })),
  content: Str(),
  topic: Opt(Str({ aliases: ['subject'], description: 'The topic of a stream message' })),
  client: Opt(Str({ description: 'The sending client\'s name; the User-Agent otherwise' })),
  queue_id: Opt(Str({ description: 'The sender\'s event queue, for local echo' })),
  local_id: Opt(Str({ description: 'The local echo\'s id; required with queue_id' })),
  read_by_sender: Opt(Bool({ description: 'Whether the sender\'s copy is marked read (feature level 236); by default, when sent from a non-API client' })),
};

function addressee(r: AuthedRequest<ArgsOf<typeof SEND_PARAMS>>): Addressee {
  const type = r.args.type;
  const kind = messageKind(type);
  // Zulip 5's Addressee.legacy_build: a stream message without `to` goes to the sender's
  // default sending stream (a bot's setting), and is refused when there is none.
  const to = r.args.to;
  if (kind === 'stream' && to === undefined) {
    if (r.user.default_sending_stream_id === null) throw badRequest('Missing stream');
    return { kind: 'stream', id: r.user.default_sending_stream_id };
  }
  if (to === undefined) throw missingArgument('to');
  if (kind === 'stream') return streamAddressee(to);
  if (kind === 'private') return privateAddressee(to);
  throw badRequest('Invalid message type');
}

export const messageSendRoutes: Route[] = [
  route({
    method: 'POST', path: '/messages', auth: 'user', allowWebhookBot: true, summary: 'Send a message',
    params: SEND_PARAMS,
    answer: Type.Object({
      id: Type.Integer(),
      automatic_new_visibility_policy: Type.Optional(Type.Integer({ description: 'The sender\'s new policy for the topic, when sending changed it by their automatic follow/unmute settings (level 218)' })),
    }),
    handler: async (r) => {
      const to = addressee(r);
      const queueId = r.args.queue_id;
      const localId = r.args.local_id;
      if (queueId !== undefined && localId === undefined) throw missingArgument('local_id');
      const { id, automaticNewVisibilityPolicy } = await sendMessageResult(r.ctx, r.realm, r.user, {
        to, content: r.args.content, topic: sentNoTopicToEmpty(r.args.topic, r.ctx.config.featureLevel),
        client: clientName(r.args.client, r.req.headers['user-agent']), queueId, localId,
        readBySender: r.args.read_by_sender,
      });
      // The policy changes only from level 214, and the field is level 218's.
      return automaticNewVisibilityPolicy !== undefined && r.ctx.config.featureLevel >= 218
        ? { id, automatic_new_visibility_policy: automaticNewVisibilityPolicy } : { id };
    },
  }),
];
