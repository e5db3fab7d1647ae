import type { AppContext } from '../../context.js';
import type { RealmRow } from '../../store/rows.js';
import type { RecipientType } from '../../lib/recipient-type.js';
import type { ImportSource, Progress, Row } from '../source.js';
import { IdMap, MessageIdMap } from './ids.js';

export interface LoadOptions {
  stringId: string;
  name?: string | undefined;
  /** The largest file copied from the export. */
  maxFileBytes: number;
}

export interface MappedRecipient {
  id: number; type: RecipientType; streamId: number | null;
  /** A person's or a group conversation's members, as Parley user ids (drafts and scheduled messages name them). */
  members?: number[];
}

/** What one import has made so far: the id maps every later phase reads, and what a failure must undo. */
export interface LoadState {
  ctx: AppContext;
  source: ImportSource;
  realm: RealmRow;
  progress: Progress;
  opts: LoadOptions;
  /** The export's realm id: its upload paths begin with it. */
  sourceRealmId: number;
  users: IdMap;
  streams: IdMap;
  huddles: IdMap;
  groups: IdMap;
  fields: IdMap;
  emoji: IdMap;
  recipients: Map<number, MappedRecipient>;
  messages: MessageIdMap;
  /** Client names by the export's client id (messages name their sending client by id). */
  clients: Map<number, string>;
  /** Private streams' subscribers, by Parley stream id: who may link them in a message. */
  privateMembers: Map<number, Set<number>>;
  /** Undo lists: huddle rows (keyed by members, not a realm) and stored files. */
  madeHuddles: number[];
  storedKeys: string[];
}

export function newState(ctx: AppContext, source: ImportSource, realm: RealmRow, progress: Progress, opts: LoadOptions, sourceRealmId: number): LoadState {
  return {
    ctx, source, realm, progress, opts, sourceRealmId,
    users: new IdMap('user'), streams: new IdMap('stream'), huddles: new IdMap('group conversation'),
    groups: new IdMap('user group'), fields: new IdMap('custom profile field'), emoji: new IdMap('custom emoji'),
    recipients: new Map(), messages: new MessageIdMap(), clients: new Map(), privateMembers: new Map(),
    madeHuddles: [], storedKeys: [],
  };
}

export const tableOf = (s: LoadState, name: string): Row[] => s.source.realm[name] ?? [];
