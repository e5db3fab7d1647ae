import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the hook server received. */
export interface HookCall {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body read as the generic interface's JSON (undefined for a form body). */
  json: any;
  /** The body read as form fields. */
  form: URLSearchParams;
}

/** How the hook answers one call: a status and body, or never ('hang'). */
export type HookAnswer = { status?: number; body: unknown } | 'hang';

export interface HookServer {
  url: string;
  calls: HookCall[];
  /** Calls received and neither answered nor given up by the caller. */
  readonly open: number;
  answer: (call: HookCall) => HookAnswer;
  close(): Promise<void>;
}

/**
 * A stand-in for an outgoing-webhook bot's service: an HTTP server on a free loopback port
 * that records each call and answers as `answer` says (JSON unless the body is a string).
 */
export async function hookServer(answer: HookServer['answer'] = () => ({ body: { response_not_required: true } })): Promise<HookServer> {
  let open = 0;
  const hook: HookServer = {
    url: '',
    calls: [],
    get open() {
      return open;
    },
    answer,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const call: HookCall = { headers: req.headers, body, json, form: new URLSearchParams(body) };
      hook.calls.push(call);
      const a = hook.answer(call);
      open += 1;
      let settled = false;
      const settle = () => {
        if (!settled) open -= 1;
        settled = true;
      };
      res.on('close', settle);
      if (a === 'hang') return;
      const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      res.writeHead(a.status ?? 200, { 'content-type': typeof a.body === 'string' ? 'text/plain' : 'application/json' });
      res.end(text, settle);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return hook;
}
