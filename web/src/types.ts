/** The wire shapes the app reads (only the fields it uses), and its derived lookup tables. */

export type Reaction = { emoji_name: string; emoji_code: string; reaction_type: string; user_id: number };

export type Recipient = { id: number; email: string; full_name: string };

export type Message = {
  id: number;
  type: 'stream' | 'private';
  sender_id: number;
  sender_full_name: string;
  sender_email: string;
  avatar_url?: string | null;
  stream_id?: number;
  display_recipient: string | Recipient[];
  subject: string;
  content: string;
  timestamp: number;
  flags: string[];
  reactions: Reaction[];
  last_edit_timestamp?: number;
  /** Set on a local echo until the server's message event confirms it. */
  local_id?: string;
  failed?: boolean;
};

export type User = { user_id: number; email: string; full_name: string; is_bot: boolean; is_active?: boolean; avatar_url?: string | null; role?: number };

export type Stream = { stream_id: number; name: string; description?: string; invite_only?: boolean; is_muted?: boolean; in_home_view?: boolean; color?: string };

/** Register's answer plus the tables the app derives from it after every batch of events. */
export type State = {
  reg: Record<string, any>;
  me: number;
  usersById: Map<number, User>;
  usersByEmail: Map<string, User>;
  streamsById: Map<number, Stream>;
};
