import sharp from 'sharp';

/** Zulip's DEFAULT_EMOJI_SIZE: custom emoji are shown at most this many pixels square. */
export const EMOJI_SIZE = 64;

export interface ProcessedEmoji {
  /** What is served: at most 64x64, every frame of an animation kept. */
  image: Buffer;
  /** The file extension of `image`'s format, with its dot. */
  ext: string;
  contentType: string;
  animated: boolean;
  /** The first frame as PNG, for an animated emoji (Zulip's still_url, level 97). */
  still: Buffer | null;
}

const OUTPUT: Record<string, { ext: string; type: string }> = {
  gif: { ext: '.gif', type: 'image/gif' }, png: { ext: '.png', type: 'image/png' },
  jpeg: { ext: '.jpg', type: 'image/jpeg' }, webp: { ext: '.webp', type: 'image/webp' },
};

/**
 * Zulip's resize_emoji, with sharp (libvips): an image larger than 64 pixels either way is
 * cropped to fill 64x64 (Pillow's ImageOps.fit), animations frame by frame. The image is
 * always re-encoded, and formats other than GIF, PNG, JPEG and WebP become PNG: what is
 * served publicly is then never a user's SVG or anything a browser might run.
 * Undefined when the bytes are no image sharp can decode.
 */
export async function processEmoji(data: Buffer): Promise<ProcessedEmoji | undefined> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(data, { animated: true }).metadata();
  } catch {
    return undefined;
  }
  const out = OUTPUT[meta.format ?? ''] ?? OUTPUT.png!;
  const animated = (meta.pages ?? 1) > 1 && (meta.format === 'gif' || meta.format === 'webp');
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  const fit = (img: sharp.Sharp) => (width > EMOJI_SIZE || height > EMOJI_SIZE ? img.resize(EMOJI_SIZE, EMOJI_SIZE, { fit: 'cover' }) : img);
  try {
    const image = await fit(sharp(data, { animated })).toFormat(out.ext.slice(1) === 'jpg' ? 'jpeg' : (out.ext.slice(1) as keyof sharp.FormatEnum)).toBuffer();
    const still = animated ? await fit(sharp(data, { pages: 1 })).png().toBuffer() : null;
    return { image, ext: out.ext, contentType: out.type, animated, still };
  } catch {
    return undefined;
  }
}
