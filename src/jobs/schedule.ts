import type { Job } from './scheduler.js';
import { sweepUploads } from '../actions/upload-sweep.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * What the background scheduler runs (src/wiring.ts starts it), each at start and then on
 * its period, on one node of a cluster at a time. A new periodic job belongs here.
 */
export function scheduledJobs(): Job[] {
  return [
    // Uploads nothing links any more, past their grace period (src/actions/upload-sweep.ts).
    { name: 'storage-sweep', everyMs: HOUR_MS, run: (ctx, signal) => sweepUploads(ctx, { signal }) },
  ];
}
