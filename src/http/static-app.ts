import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { AppContext } from '../context.js';

/**
 * The browser app (web-contract.md): web/dist's hashed assets at /assets/, its index.html
 * at / and at any other page address a person can open (/login, /join/<key>/, a narrow's
 * address reloaded): the app routes itself. The API's folders keep their own answers.
 */
const NOT_APP_PAGES = ['/api/', '/json/', '/accounts/', '/user_uploads/', '/user_avatars/', '/assets/'];

// The page loads its own scripts only; what messages contain (already sanitised) can never
// run as script even if a sanitiser missed something. Inline styles are the framework's.
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https:; "
    + "media-src 'self' https:; connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parley</title></head>
<body><h1>Parley</h1><p>The web app is not built. Build it with <code>npm run build</code> (or reinstall with
<code>npm install</code>), then reload this page. The API at <code>/api/v1</code> works without it.</p></body></html>
`;

export async function registerWebApp(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const assets = path.join(ctx.config.webDir, 'assets');
  // Hashed names: a file's content never changes under its name. The build wrote brotli and
  // gzip copies beside each compressible file (scripts/web-build.mjs); preCompressed sends
  // the one the request's Accept-Encoding takes (Content-Encoding, Vary: Accept-Encoding),
  // else the plain file, and never compresses per request.
  if (existsSync(assets)) {
    await app.register(fastifyStatic, {
      root: assets, prefix: '/assets/', index: false, immutable: true, maxAge: '365d', wildcard: true, preCompressed: true,
    });
  }
  const page = (_req: FastifyRequest, reply: FastifyReply) => sendAppPage(ctx, reply);
  for (const url of ['/', '/login', '/join/:key/']) app.get(url, page);
}

/** index.html, read per request (a rebuild shows without a restart; it is small), or how to build it. */
async function sendAppPage(ctx: AppContext, reply: FastifyReply): Promise<FastifyReply> {
  let html: string;
  try {
    html = await fs.readFile(path.join(ctx.config.webDir, 'index.html'), 'utf8');
  } catch {
    html = NOT_BUILT;
  }
  return reply.headers(PAGE_HEADERS).send(html);
}

/** For the not-found handler: a browser's page request anywhere outside the API gets the app. */
export async function maybeSendAppPage(ctx: AppContext, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const url = req.url.split('?')[0]!;
  if (NOT_APP_PAGES.some((p) => url.startsWith(p) || url === p.slice(0, -1))) return false;
  if (!(req.headers.accept ?? '').includes('text/html')) return false;
  await sendAppPage(ctx, reply);
  return true;
}
