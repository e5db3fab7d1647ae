/**
 * An SMTP server in the test process: mail Parley sends over SMTP arrives here, parsed
 * (mailparser). It listens on a free loopback port; `url` goes into testApp({ smtpUrl }).
 * `behaviour` makes it refuse every message (a 550 after DATA) or hang (accept the
 * connection and the data, never answer), for the failure paths.
 */
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { until, type UntilOptions } from './until.js';

export type SmtpBehaviour = 'accept' | 'refuse' | 'hang';

export interface TestSmtp {
  /** smtp://127.0.0.1:PORT, with short client timeouts (a hang fails fast), for testApp({ smtpUrl }). */
  url: string;
  port: number;
  /** Every message accepted so far, parsed, in arrival order. */
  mails: ParsedMail[];
  behaviour: SmtpBehaviour;
  /** Waits until at least `count` messages arrived; answers them all. */
  waitFor(count: number, opts?: UntilOptions): Promise<ParsedMail[]>;
  /** Messages to one address. */
  to(address: string): ParsedMail[];
  close(): Promise<void>;
}

export const SMTP_TEST_TIMEOUT_MS = 500;

export async function startSmtp(behaviour: SmtpBehaviour = 'accept'): Promise<TestSmtp> {
  const mails: ParsedMail[] = [];
  // Hung transactions, answered at close so that the server can stop.
  const hung: Array<(err?: Error | null) => void> = [];
  const state: TestSmtp = {
    url: '', port: 0, mails, behaviour,
    waitFor: (count, opts) => until(() => mails.length >= count && mails, { message: `${count} mail(s) at the test SMTP server (got ${mails.length})`, ...opts }),
    to: (address) => mails.filter((m) => addressesOf(m).includes(address.toLowerCase())),
    close: () => new Promise<void>((resolve) => {
      for (const cb of hung.splice(0)) cb(new Error('closing'));
      server.close(() => resolve());
    }),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 100,
    onData(stream, _session, callback) {
      if (state.behaviour === 'hang') {
        stream.resume();
        hung.push(callback);
        return;
      }
      simpleParser(stream).then((mail) => {
        if (state.behaviour === 'refuse') {
          const err = Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 });
          callback(err);
          return;
        }
        mails.push(mail);
        callback();
      }, (err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  const t = SMTP_TEST_TIMEOUT_MS;
  state.port = port;
  state.url = `smtp://127.0.0.1:${port}?connectionTimeout=${t}&greetingTimeout=${t}&socketTimeout=${t}`;
  return state;
}

function addressesOf(mail: ParsedMail): string[] {
  const to = mail.to === undefined ? [] : Array.isArray(mail.to) ? mail.to : [mail.to];
  return to.flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));
}
