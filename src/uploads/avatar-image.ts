import sharp from 'sharp';
import { DEFAULT_AVATAR_SIZE, MEDIUM_AVATAR_SIZE } from '../lib/uploads.js';

/** Zulip's MAX_AVATAR_FILE_SIZE_MIB. */
export const MAX_AVATAR_FILE_SIZE_MIB = 5;

/** Zulip's THUMBNAIL_ACCEPT_IMAGE_TYPES: what an avatar upload may declare itself to be. */
export const AVATAR_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/avif', 'image/gif', 'image/heic', 'image/jpeg', 'image/png', 'image/tiff', 'image/webp',
]);

export interface AvatarImages {
  /** DEFAULT_AVATAR_SIZE square, PNG. */
  small: Buffer;
  /** MEDIUM_AVATAR_SIZE square, PNG. */
  medium: Buffer;
}

/**
 * Zulip's resize_avatar at both sizes: cropped about the centre to fill the square (and
 * enlarged when smaller, as libvips' thumbnail does), the first frame of an animation, always
 * re-encoded as PNG so that what is served publicly is never the uploader's bytes.
 * Undefined when sharp cannot decode them.
 */
export async function resizeAvatar(data: Buffer): Promise<AvatarImages | undefined> {
  const at = (size: number) => sharp(data, { pages: 1 }).rotate().resize(size, size, { fit: 'cover', position: 'centre' }).png().toBuffer();
  try {
    const [small, medium] = await Promise.all([at(DEFAULT_AVATAR_SIZE), at(MEDIUM_AVATAR_SIZE)]);
    return { small, medium };
  } catch {
    return undefined;
  }
}
