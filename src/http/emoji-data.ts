import type { FastifyInstance } from 'fastify';
import { SERVER_EMOJI_DATA_DIR, serverEmojiData } from '../emoji/server-data.js';

/**
 * The emoji name data register points to (server_emoji_data_url): a static file, fetched
 * without credentials, cached for a year (a new content gets a new name). Only the current
 * name answers; any other is not found.
 */
export function registerEmojiData(app: FastifyInstance): void {
  app.get(`${SERVER_EMOJI_DATA_DIR}:file`, async (req, reply) => {
    const data = serverEmojiData();
    if ((req.params as { file?: string }).file !== data.name) {
      return reply.status(404).send({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
    }
    return reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=31536000, immutable').send(data.bytes);
  });
}
