import crypto from 'node:crypto';
import type { ParleyMetrics } from './metrics.js';

/**
 * Whether an Authorization header carries `Bearer <token>`. Both sides are hashed first, so
 * that the comparison takes the same time whatever the guess, its length included.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  const digest = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(digest(m?.[1] ?? ''), digest(token)) && m !== null;
}

/** The scrape's answer: every metric in Prometheus' text format. */
export async function exposition(metrics: ParleyMetrics): Promise<{ contentType: string; body: string }> {
  return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}
