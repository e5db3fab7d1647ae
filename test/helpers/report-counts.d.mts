/** Where both sides write their counts; set by test/run.ts for one suite run. */
export const COUNTS_DIR_ENV: string;
/** The runner's counts, in the counts folder. */
export const RECEIVED_FILE: string;
/** A test process's counts, one file per process, in the counts folder. */
export function sentFile(pid: number): string;

/**
 * Top-level tests of one file: started (enqueued), and finished (a pass or fail result); and
 * the result the runner gave the file as a whole, if it made one up.
 */
export interface FileCount { started: number; results: number; fileResult?: 'pass' | 'fail' }
/** Per test file, by absolute path. */
export type Counts = Record<string, FileCount>;
export interface TestEvent { type: string; data?: { nesting?: number; file?: string; name?: string } }

/** The file a result belongs to, as an absolute path: events carry a path or a file URL. */
export function fileKey(file: string | undefined, fallback: string): string;
export function countEvent(counts: Counts, ev: TestEvent, fallbackFile: string): void;
export function decodeFrames(chunk: Uint8Array): TestEvent[];
export function encodeFrame(ev: TestEvent): Buffer;
export function readCounts(dir: string): { received: Counts | undefined; sent: Counts };
export function compareCounts(received: Counts | undefined, sent: Counts, cwd?: string): string[];
