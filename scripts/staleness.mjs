/**
 * When a build is stale, shared by the server's build (build.mjs) and the web app's
 * (web-build.mjs): a stamp file whose modification time is when its build started,
 * against the newest modification time under each input.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Newest modification time under p; a folder's own time moves when an entry is added, removed or renamed. */
export function newest(p) {
  const st = fs.statSync(p);
  let t = st.mtimeMs;
  if (st.isDirectory()) for (const e of fs.readdirSync(p)) t = Math.max(t, newest(path.join(p, e)));
  return t;
}

/** True when the stamp is missing or an existing input changed after it. */
export function olderThanInputs(stampFile, inputs) {
  let built;
  try {
    built = fs.statSync(stampFile).mtimeMs;
  } catch {
    return true;
  }
  return inputs.some((p) => fs.existsSync(p) && newest(p) > built);
}
