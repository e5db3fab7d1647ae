import type { ConfigOverrides } from '../config.js';
import { buildApp } from '../app.js';
import { ensureDefaultRealm } from './bootstrap.js';

export async function serve(overrides: ConfigOverrides): Promise<void> {
  const app = await buildApp(overrides);
  const { ctx } = app;
  const boot = await ensureDefaultRealm(ctx);
  if (boot.created) {
    ctx.log.info({ email: boot.email }, 'created the default organization and its owner');
    if (boot.generated) {
      // Printed once, on the first start only: the password is not stored anywhere readable.
      process.stdout.write(`\nFirst start: log in as ${boot.email} with password ${boot.password}\n\n`);
    }
  }
  await app.http.listen({ host: ctx.config.host, port: ctx.config.port });
  ctx.log.info(`Parley listening on http://${ctx.config.host}:${ctx.config.port} (${ctx.store.dialect.name}); public URL ${ctx.config.externalUrl}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      ctx.log.error('shutdown took too long, exiting');
      process.exit(1);
    }, 100_000);
    force.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
