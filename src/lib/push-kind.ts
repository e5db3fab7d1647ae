/** Zulip's PushDeviceToken.kind values: APNs (iOS) and FCM (Android, Zulip's "GCM"). */
export const PUSH_KIND = { APNS: 1, FCM: 2 } as const;
export type PushKind = (typeof PUSH_KIND)[keyof typeof PUSH_KIND];
