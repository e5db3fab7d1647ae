/**
 * `npm run bench -- ratelimit [rounds]`: what request budgets cost on the cheapest paths,
 * GET /users/me (api_by_user) and GET /server_settings (api_by_ip), as server CPU per
 * request through Fastify's inject(), budgets on (out of reach) against off, in alternating
 * rounds in one process so that the machine's other load falls on both alike.
 */
import { startBenchApp, type BenchApp } from './lib/bench-app.js';
import { parseRateLimitRules } from '../src/ratelimit/rules.js';

const ROUNDS = Number(process.argv[2] ?? 7);
const PER_ROUND = 4000;
const CONCURRENCY = 16;

const out = parseRateLimitRules('api_by_user=60:1000000000;api_by_ip=60:1000000000');
const apps: Record<'off' | 'on', BenchApp> = {
  off: await startBenchApp('ratelimit-off', { rateLimiting: false }),
  on: await startBenchApp('ratelimit-on', { rateLimiting: true, rateLimits: out }),
};

async function round(b: BenchApp, url: string, authed: boolean): Promise<number> {
  const headers: Record<string, string> = { host: '127.0.0.1' };
  if (authed) headers.authorization = 'Basic ' + Buffer.from(`${b.owner.email}:${b.owner.api_key}`).toString('base64');
  const cpu = process.cpuUsage();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next++ < PER_ROUND) {
      const r = await b.app.http.inject({ method: 'GET', url, headers });
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
    }
  }));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / PER_ROUND;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [label, url, authed] of [['GET /users/me', '/api/v1/users/me', true], ['GET /server_settings', '/api/v1/server_settings', false]] as const) {
  const times: Record<'off' | 'on', number[]> = { off: [], on: [] };
  for (const mode of ['off', 'on'] as const) await round(apps[mode], url, authed); // warm-up
  for (let i = 0; i < ROUNDS; i++) for (const mode of (i % 2 ? ['on', 'off'] as const : ['off', 'on'] as const)) times[mode].push(await round(apps[mode], url, authed));
  const off = median(times.off), on = median(times.on);
  process.stdout.write(`${label.padEnd(22)} budgets off ${off.toFixed(1)} µs CPU/request, on ${on.toFixed(1)} µs: ${on - off >= 0 ? '+' : ''}${(on - off).toFixed(1)} µs (${(((on - off) / off) * 100).toFixed(1)}%), median of ${ROUNDS} rounds of ${PER_ROUND}\n`);
}
await apps.off.close();
await apps.on.close();
