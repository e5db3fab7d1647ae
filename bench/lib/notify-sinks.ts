/**
 * Where a benchmark's notifications go: an SMTP server that accepts every mail and an HTTP
 * server answering every call to Zulip's push service with success, each counting what it
 * took, so that a run measures Parley's side of the delivery and not a real provider's.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface NotifySinks {
  smtpUrl: string;
  bouncerUrl: string;
  mails: number;
  pushes: number;
  close(): Promise<void>;
}

export async function startNotifySinks(): Promise<NotifySinks> {
  const sinks = { mails: 0, pushes: 0 } as NotifySinks;
  const smtp = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'], logger: false, disableReverseLookup: true,
    onData: (stream, _session, done) => {
      stream.resume();
      stream.on('end', () => {
        sinks.mails++;
        done();
      });
    },
  });
  // Without this, Nagle's algorithm against delayed ACKs costs every SMTP exchange ~40 ms: the sink, not Parley, would set the pace.
  smtp.server.on('connection', (socket: import('node:net').Socket) => socket.setNoDelay(true));
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  const service = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/push/notify')) sinks.pushes++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result: 'success', msg: '', created: true, total_android_devices: 1, total_apple_devices: 0, deleted_devices: { android_devices: [], apple_devices: [] } }));
    });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', () => r()));
  sinks.smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  sinks.bouncerUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  sinks.close = async () => {
    await new Promise<void>((r) => smtp.close(() => r()));
    await new Promise<void>((r) => service.close(() => r()));
  };
  return sinks;
}
