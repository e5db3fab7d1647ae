import type { Q, TusUploadRow } from '../store/rows.js';
import { tusUploads } from '../store/repos/tus-uploads.js';

/** The user's own resumable upload (/api/v1/tus); another user's answers nothing, as a missing one. */
export const ownTusUpload = (q: Q, id: string, userId: number): Promise<TusUploadRow | undefined> => tusUploads.findOwn(q, id, userId);
