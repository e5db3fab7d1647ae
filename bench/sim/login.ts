/**
 * Password sign-in (POST /fetch_api_key) at a steady arrival rate, open loop: a new
 * sign-in starts every 1/rate seconds whether or not the earlier ones have finished, so a
 * slow server shows up as latency rather than as a lower rate.
 */
import { Pool } from 'undici';
import { emptyHist, record, type Hist } from './histogram.js';
import type { SimUser } from './shape.js';

export async function signInPhase(base: string, users: SimUser[], rate: number, seconds: number, onTick: (done: number) => void): Promise<{ hist: Hist; errors: number; seconds: number }> {
  const pool = new Pool(base, { connections: 16 });
  const hist = emptyHist();
  let errors = 0;
  const withPassword = users.filter((u) => u.password);
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const inflight: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const u = withPassword[i % withPassword.length]!;
    const t0 = performance.now();
    inflight.push(pool.request({
      method: 'POST', path: '/api/v1/fetch_api_key', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: u.email, password: u.password! }).toString(),
    }).then(async (res) => {
      await res.body.text();
      if (res.statusCode !== 200) errors++;
    }, () => { errors++; }).finally(() => {
      record(hist, performance.now() - t0);
      onTick(hist.n);
    }));
  }
  await Promise.all(inflight);
  await pool.close();
  return { hist, errors, seconds: (performance.now() - started) / 1000 };
}
