/**
 * `npm run bench -- ratelimit [rounds]`: what request budgets cost on the cheapest paths,
 * GET /users/me (api_by_user) and GET /server_settings (api_by_ip), as server CPU per
 * request through Fastify's inject(), budgets on (out of reach) against off, in alternating
 * rounds in one process so that the machine's other load falls on both alike. With a
 * redis-server on the machine, budgets in Redis too (a cluster's), and Redis's own CPU.
 */
import { Redis } from 'ioredis';
import { startBenchApp, type BenchApp } from './lib/bench-app.js';
import { parseRateLimitRules } from '../src/ratelimit/rules.js';
import { findRedisServer, startRedis } from '../test/helpers/redis.js';

const ROUNDS = Number(process.argv[2] ?? 7);
const PER_ROUND = 4000;
const CONCURRENCY = 16;

const out = parseRateLimitRules('api_by_user=60:1000000000;api_by_ip=60:1000000000');
type Mode = 'off' | 'on' | 'redis';
const redis = findRedisServer() ? await startRedis() : undefined;
if (!redis) process.stdout.write('no redis-server on this machine: budgets in Redis not measured\n');
const admin = redis ? new Redis(redis.url) : undefined;
const apps: Partial<Record<Mode, BenchApp>> = {
  off: await startBenchApp('ratelimit-off', { rateLimiting: false }),
  on: await startBenchApp('ratelimit-on', { rateLimiting: true, rateLimits: out }),
  ...(redis ? { redis: await startBenchApp('ratelimit-redis', { rateLimiting: true, rateLimits: out, redisUrl: redis.url }) } : {}),
};
const modes = Object.keys(apps) as Mode[];

/** Redis's CPU so far in µs (INFO cpu: user and system seconds). */
async function redisCpuUs(): Promise<number> {
  const info = await admin!.info('cpu');
  const num = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (num('used_cpu_user') + num('used_cpu_sys')) * 1e6;
}

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
const delta = (x: number, base: number) => `${x - base >= 0 ? '+' : ''}${(x - base).toFixed(1)} µs (${(((x - base) / base) * 100).toFixed(1)}%)`;
for (const [label, url, authed] of [['GET /users/me', '/api/v1/users/me', true], ['GET /server_settings', '/api/v1/server_settings', false]] as const) {
  const times: Record<Mode, number[]> = { off: [], on: [], redis: [] };
  const redisTimes: number[] = [];
  for (const mode of modes) await round(apps[mode]!, url, authed); // warm-up
  for (let i = 0; i < ROUNDS; i++) {
    for (const mode of (i % 2 ? [...modes].reverse() : modes)) {
      const before = mode === 'redis' ? await redisCpuUs() : 0;
      times[mode].push(await round(apps[mode]!, url, authed));
      if (mode === 'redis') redisTimes.push((await redisCpuUs() - before) / PER_ROUND);
    }
  }
  const off = median(times.off), on = median(times.on);
  process.stdout.write(`${label.padEnd(22)} budgets off ${off.toFixed(1)} µs CPU/request, in memory ${on.toFixed(1)} µs: ${delta(on, off)}`);
  if (redis) process.stdout.write(`, in Redis ${median(times.redis).toFixed(1)} µs: ${delta(median(times.redis), off)}, and Redis's own ${median(redisTimes).toFixed(1)} µs`);
  process.stdout.write(`; median of ${ROUNDS} rounds of ${PER_ROUND}\n`);
}
for (const a of Object.values(apps)) await a.close();
admin?.disconnect();
await redis?.stop();
