/**
 * The wire shapes the app reads, named by the server's own types (src/schemas/wire.ts,
 * src/events/), and the lookup tables the app derives from register's state.
 */
import type { RegisterState } from '../../src/events/apply';
import type { HeldMessage } from '../../src/events/apply/held-messages';
import type { WireStream, WireSubscription, WireUser } from '../../src/schemas/wire';

export type { ClientEvent } from '../../src/events/types';
export type { RegisterState };

export type Reaction = HeldMessage['reactions'][number];

export type Recipient = Exclude<HeldMessage['display_recipient'], string>[number];

/** A message as the app holds it; a local echo carries its local id until the server's event confirms it. */
export type Message = HeldMessage & { local_id?: string; failed?: boolean };

export type User = WireUser;

/** A stream as the app looks it up: the subscription's fields when the viewer is subscribed. */
export type Stream = WireStream & Partial<Omit<WireSubscription, keyof WireStream>>;

/** What the app reads of register's answer beyond the state events keep. */
export type Register = RegisterState & {
  queue_id: string;
  last_event_id: number;
  user_id: number;
  realm_name?: string;
  is_admin?: boolean;
  is_owner?: boolean;
  realm_mandatory_topics?: boolean;
  server_timestamp?: number;
};

/** Register's answer plus the tables the app derives from it after every batch of events. */
export type State = {
  reg: Register;
  me: number;
  usersById: Map<number, User>;
  usersByEmail: Map<string, User>;
  streamsById: Map<number, Stream>;
};
