/** Zulip's MAX_ICON_FILE_SIZE_MIB. */
export const MAX_ICON_FILE_SIZE_MIB = 5;

/** Where an organization's uploaded icon is stored, as Zulip's `<realm_id>/realm/icon.png` (served under /user_avatars/). */
export function realmIconKeys(realmId: number): { icon: string; original: string } {
  return { icon: `${realmId}/realm/icon.png`, original: `${realmId}/realm/icon.original` };
}
