import { Transform } from 'node:stream';
import sharp from 'sharp';

/** Enough for the header of the images people upload (a JPEG's EXIF block comes before its size). */
const HEAD_BYTES = 256 * 1024;

export interface ImageSize { width: number; height: number }

/**
 * Passes a file through unchanged while keeping its first bytes, so that an image's pixel size
 * can be read from its header once it has streamed to storage: the file itself is never held
 * in memory. `size()` is undefined for anything that is not a readable image.
 */
export function imageSizeTap(): { tap: Transform; size(): Promise<ImageSize | undefined> } {
  const head: Buffer[] = [];
  let kept = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (kept < HEAD_BYTES) {
        const part = chunk.subarray(0, HEAD_BYTES - kept);
        head.push(part);
        kept += part.length;
      }
      done(null, chunk);
    },
  });
  return { tap, size: () => imageSize(Buffer.concat(head)) };
}

/** The pixel size from an image's first bytes (the whole file for a small one). */
export async function imageSize(head: Buffer): Promise<ImageSize | undefined> {
  try {
    const m = await sharp(head).metadata();
    // EXIF orientations 5 to 8 turn the image a quarter: shown, it is as tall as it is wide.
    const turned = (m.orientation ?? 1) >= 5;
    if (m.width && m.height) return turned ? { width: m.height, height: m.width } : { width: m.width, height: m.height };
  } catch {
    // libvips wants the whole of a GIF or WebP; their sizes are at fixed places in the header.
  }
  return headerSize(head);
}

function headerSize(b: Buffer): ImageSize | undefined {
  if (b.length >= 10 && b.toString('latin1', 0, 3) === 'GIF') return positive(b.readUInt16LE(6), b.readUInt16LE(8));
  if (b.length >= 30 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') {
    const chunk = b.toString('latin1', 12, 16);
    if (chunk === 'VP8X') return positive(b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1);
    if (chunk === 'VP8 ') return positive(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
    if (chunk === 'VP8L') {
      const bits = b.readUInt32LE(21);
      return positive((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
    }
  }
  return undefined;
}

const positive = (width: number, height: number): ImageSize | undefined => (width > 0 && height > 0 ? { width, height } : undefined);
