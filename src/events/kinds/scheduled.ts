/** The sender's own scheduled messages (Zulip's scheduled_messages events), to the sender's queues only. */
import type { WireScheduledMessage } from '../../presenters/scheduled-message.js';

export interface ScheduledMessagesAddEvent { type: 'scheduled_messages'; op: 'add'; scheduled_messages: WireScheduledMessage[] }
export interface ScheduledMessagesUpdateEvent { type: 'scheduled_messages'; op: 'update'; scheduled_message: WireScheduledMessage }
export interface ScheduledMessagesRemoveEvent { type: 'scheduled_messages'; op: 'remove'; scheduled_message_id: number }
export type ScheduledMessagesEvent = ScheduledMessagesAddEvent | ScheduledMessagesUpdateEvent | ScheduledMessagesRemoveEvent;
