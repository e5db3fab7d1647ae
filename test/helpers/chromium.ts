/** Where the machine's Chromium is, if anywhere (test/run.ts reports a skip without loading playwright). */
import fs from 'node:fs';

// PARLEY_CHROMIUM names the browser (and only it: PARLEY_CHROMIUM=none runs without one).
const CANDIDATES = process.env.PARLEY_CHROMIUM ? [process.env.PARLEY_CHROMIUM] : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
export const CHROMIUM = CANDIDATES.find((p): p is string => !!p && fs.existsSync(p)) ?? null;
export const NO_BROWSER = 'no Chromium on this machine (apt-get install chromium fonts-noto-color-emoji)';
