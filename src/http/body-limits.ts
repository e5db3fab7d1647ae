/**
 * What one request may send. One global limit for every body that is not a file upload
 * (form, JSON, text and multipart with plain fields, as zulip-js sends every POST); the
 * routes that take files allow the configured file size on top. Each refusal is a 413 in
 * the API's shape.
 */
export const MIB = 1024 * 1024;

/** Every body but a file upload's: 8 MiB, far above any list or message the API accepts. */
export const MAX_BODY_BYTES = 8 * MIB;

/** Plain fields of one multipart body (zulip-js sends each parameter as one). */
export const MAX_MULTIPART_FIELDS = 1000;

/** Parts of an upload request (its file plus any fields); extra files are drained, never kept. */
export const MAX_UPLOAD_PARTS = 100;
export const MAX_UPLOAD_FILES = 10;

/** Room for an upload's part headers and plain fields beside its file. */
export const UPLOAD_OVERHEAD_BYTES = 1 * MIB;

export function maxUploadBodyBytes(maxFileUploadSizeMib: number): number {
  return maxFileUploadSizeMib * MIB + UPLOAD_OVERHEAD_BYTES;
}
