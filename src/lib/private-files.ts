import fs from 'node:fs';

/**
 * The data directory holds the database (API keys in plaintext, password hashes), the
 * saved event queues (message contents) and the mail outbox (confirmation links): only
 * the server's own user may read any of it. Directories are 0700 and files 0600, both
 * when created and, for files left by earlier versions, at every start.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and parents) if needed and makes it 0700. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Makes each existing file 0600; absent ones are skipped. */
export function restrictFiles(...files: string[]): void {
  for (const f of files) {
    try {
      fs.chmodSync(f, PRIVATE_FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/**
 * Creates `file` empty with mode 0600 if it does not exist, so that whatever opens it next
 * (SQLite, which would create it 0644 and its -wal and -shm files with the same mode) finds
 * it private.
 */
export function createPrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_WRONLY, PRIVATE_FILE_MODE));
  restrictFiles(file);
}

/** Writes `data` to `file` 0600, whole or not at all (a temporary file renamed over it). */
export function writePrivateFile(file: string, data: string | Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, { mode: PRIVATE_FILE_MODE });
  fs.chmodSync(tmp, PRIVATE_FILE_MODE);
  fs.renameSync(tmp, file);
}
