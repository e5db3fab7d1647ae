/** The interface's size limits (spec, "Limits"), shared by the checks that enforce them and register, which announces them. */
export const MAX_MESSAGE_BYTES = 10_000;
export const MAX_TOPIC_LENGTH = 60;
export const MAX_STREAM_NAME_LENGTH = 60;
export const MAX_STREAM_DESCRIPTION_LENGTH = 1024;
export const MAX_NAME_LENGTH = 100;
export const MAX_ALERT_WORD_LENGTH = 100;
export const MAX_STATUS_TEXT_LENGTH = 60;
