import type { Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * The pixel size of an uploaded image (Zulip's ImageAttachment original_width_px and
 * original_height_px), read from its header while it streams to storage: image previews
 * carry it as `data-original-dimensions` from feature level 276. Null for other files, images
 * whose header could not be read, and files uploaded before.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('attachment').addColumn('image_width', 'integer').execute();
  await db.schema.alterTable('attachment').addColumn('image_height', 'integer').execute();
}
