/** Events about streams and the user's subscriptions to them. */
import type { WireStream, WireStreamRef, WireSubscription } from '../../schemas/wire.js';

export interface SubscriptionAddEvent { type: 'subscription'; op: 'add'; subscriptions: WireSubscription[] }
export interface SubscriptionRemoveEvent { type: 'subscription'; op: 'remove'; subscriptions: WireStreamRef[] }
/** One property of the user's subscription; `in_home_view` and `is_muted` are each other's negation. */
export interface SubscriptionUpdateEvent { type: 'subscription'; op: 'update'; stream_id: number; property: string; value: unknown }
/** Other people joined streams: their subscriber lists grow. */
export interface SubscriptionPeerAddEvent { type: 'subscription'; op: 'peer_add'; stream_ids: number[]; user_ids: number[] }
export interface SubscriptionPeerRemoveEvent { type: 'subscription'; op: 'peer_remove'; stream_ids: number[]; user_ids: number[] }

export type SubscriptionEvent =
  | SubscriptionAddEvent | SubscriptionRemoveEvent | SubscriptionUpdateEvent | SubscriptionPeerAddEvent | SubscriptionPeerRemoveEvent;

/** Streams the user can now see (created, or made visible). */
export interface StreamCreateEvent { type: 'stream'; op: 'create'; streams: WireStream[] }
/** Streams gone (archived) or no longer visible. */
export interface StreamDeleteEvent { type: 'stream'; op: 'delete'; streams: WireStream[]; stream_ids: number[] }
/** One property of a stream; some carry the fields that change with it. */
export interface StreamUpdateEvent {
  type: 'stream'; op: 'update'; stream_id: number; name: string; property: string; value: unknown;
  rendered_description?: string; history_public_to_subscribers?: boolean; is_web_public?: boolean;
}

export type StreamEvent = StreamCreateEvent | StreamDeleteEvent | StreamUpdateEvent;

/** The streams themselves, or from level 330 their ids. */
export interface DefaultStreamsEvent { type: 'default_streams'; default_streams: WireStream[] | number[] }

/** register's muted_topics: [stream name, topic, date muted]. */
export type MutedTopic = [string, string, number];
export interface MutedTopicsEvent { type: 'muted_topics'; muted_topics: MutedTopic[] }
