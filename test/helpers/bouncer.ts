import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Zulip's push notification service (zilencer) on a random loopback port:
 * it records each call with its basic-auth credentials and its form or JSON body, answers
 * as the service does, and can be told to fail (500), refuse the credentials (401), or hang.
 */
export interface BouncerCall {
  /** The path under /api/v1/remotes/, e.g. `push/notify`. */
  endpoint: string;
  /** `id:key` from the basic auth header; null without one. */
  auth: string | null;
  contentType: string;
  body: Record<string, any>;
  /** What the fake answered. */
  status: number;
}

export type BouncerMode = 'ok' | 'fail' | 'refuse' | 'hang';

export interface FakeBouncer {
  url: string;
  calls: BouncerCall[];
  /** Calls answered 200, to one endpoint. */
  ok(endpoint: string): BouncerCall[];
  /** How the next calls are answered (all endpoints, or those `when` accepts). */
  setMode(mode: BouncerMode, when?: (endpoint: string, body: Record<string, any>) => boolean): void;
  /** What push/notify answers beyond the counts (deleted_devices, realm). */
  notifyAnswer: Record<string, unknown>;
  /** server/analytics' answer for each realm UUID it was told (default: can push, no end). */
  realmStatus: (uuid: string) => { can_push: boolean; expected_end_timestamp: number | null };
  close(): Promise<void>;
}

export async function fakeBouncer(): Promise<FakeBouncer> {
  const calls: BouncerCall[] = [];
  let mode: BouncerMode = 'ok';
  let when: ((endpoint: string, body: Record<string, any>) => boolean) | undefined;
  const hanging = new Set<http.ServerResponse>();
  const fake: FakeBouncer = {
    url: '',
    calls,
    ok: (endpoint) => calls.filter((c) => c.endpoint === endpoint && c.status === 200),
    setMode: (m, w) => { mode = m; when = w; },
    notifyAnswer: {},
    realmStatus: () => ({ can_push: true, expected_end_timestamp: null }),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const contentType = String(req.headers['content-type'] ?? '');
      const body: Record<string, any> = contentType.startsWith('application/json')
        ? JSON.parse(raw || '{}') : Object.fromEntries(new URLSearchParams(raw));
      const header = req.headers.authorization;
      const auth = header?.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : null;
      const endpoint = (req.url ?? '').replace(/^\/api\/v1\/remotes\//, '');
      const applies = !when || when(endpoint, body);
      const m = applies ? mode : 'ok';
      if (m === 'hang') {
        hanging.add(res);
        calls.push({ endpoint, auth, contentType, body, status: 0 });
        return;
      }
      const reply = (status: number, answer: Record<string, unknown>) => {
        calls.push({ endpoint, auth, contentType, body, status });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      };
      if (m === 'fail') return reply(500, { result: 'error', msg: 'Internal server error' });
      if (m === 'refuse') return reply(401, { result: 'error', msg: 'Zulip server auth failure: key does not match role 1234', code: 'INVALID_ZULIP_SERVER' });
      if (endpoint === 'server/register') return reply(200, { result: 'success', msg: '', created: true });
      if (endpoint === 'server/analytics') {
        // zilencer's remote_server_post_analytics: each field is JSON text; the answer is per realm UUID.
        const told = JSON.parse(body.realms ?? '[]') as Array<{ uuid: string }>;
        return reply(200, { result: 'success', msg: '', realms: Object.fromEntries(told.map((r) => [r.uuid, fake.realmStatus(r.uuid)])) });
      }
      if (endpoint === 'push/notify') {
        return reply(200, {
          result: 'success', msg: '',
          total_android_devices: (body.android_devices ?? []).length, total_apple_devices: (body.apple_devices ?? []).length,
          deleted_devices: { android_devices: [], apple_devices: [] },
          ...fake.notifyAnswer,
        });
      }
      return reply(200, { result: 'success', msg: '' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
