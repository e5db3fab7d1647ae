import type { Job } from './scheduler.js';
import { sweepUploads } from '../actions/upload-sweep.js';
import { runRetention } from '../actions/retention.js';
import { runSoftDeactivation } from '../actions/soft-deactivation.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * What the background scheduler runs (src/wiring.ts starts it), each at start and then on
 * its period, on one node of a cluster at a time. A new periodic job belongs here.
 */
export function scheduledJobs(): Job[] {
  return [
    // Uploads nothing links any more, past their grace period (src/actions/upload-sweep.ts).
    { name: 'storage-sweep', everyMs: HOUR_MS, run: (ctx, signal) => sweepUploads(ctx, { signal }) },
    // Messages past their stream's or organization's message_retention_days to the archive,
    // and archived batches past PARLEY_ARCHIVE_KEEP_DAYS purged (src/actions/retention.ts).
    { name: 'retention', everyMs: HOUR_MS, run: (ctx, signal) => runRetention(ctx, { signal }) },
    // People away for weeks soft-deactivated, and every idle person's missing rows made
    // (src/actions/soft-deactivation.ts): daily, as Zulip's cron.
    { name: 'soft-deactivation', everyMs: 24 * HOUR_MS, run: async (ctx, signal) => { await runSoftDeactivation(ctx, { signal }); } },
  ];
}
