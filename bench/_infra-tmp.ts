import { findPgBin, startCluster } from '../test/helpers/pg.js';
import { startRedis } from '../test/helpers/redis.js';
import pg from 'pg';
const cluster = await startCluster(findPgBin()!);
const c = new pg.Client({ connectionString: cluster.url }); await c.connect(); await c.query('CREATE DATABASE sim'); await c.end();
const redis = await startRedis();
process.stdout.write(JSON.stringify({ pg: cluster.url.replace(/\/postgres$/, '/sim'), redis: redis.url }) + '\n');
process.on('SIGTERM', async () => { cluster.stop(); await redis.stop(); process.exit(0); });
setInterval(() => {}, 1 << 30);
