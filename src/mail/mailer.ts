import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../lib/private-files.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import nodemailer from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared/index.js';
import type { Logger } from 'pino';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative to `text` (notification and digest mail send both). */
  html?: string;
  /** Extra headers, e.g. List-Unsubscribe or Reply-To handling. */
  headers?: Record<string, string>;
  replyTo?: string;
  /** Overrides the configured sender (notification mail names itself, as Zulip's does). */
  from?: string;
}

/** The address part of "Name <address>": Zulip's FromAddress.NOREPLY, from and reply-to alike (Parley reads no incoming mail). */
export function noreplyAddress(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from.trim();
}

/** Where Parley's mail goes: SMTP when configured, otherwise files in an outbox directory. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  /** The directory unsent mail is written to (file outbox only). */
  readonly outbox: string | undefined;
  /** Closes pooled SMTP connections (at shutdown). */
  close(): void;
}

export interface MailConfig {
  /** An SMTP URL (smtp://user:pass@host:587, smtps://...); absent: the file outbox. */
  smtpUrl: string | undefined;
  from: string;
  /** The file outbox's directory. */
  outboxDir: string;
}

/**
 * nodemailer waits up to 2 minutes for a connection and 10 for a quiet socket: a hanging
 * SMTP server would hold the notification worker (and a request sending a confirmation)
 * that long. Query parameters of PARLEY_SMTP_URL override these
 * (smtp://host:587?socketTimeout=60000).
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000, dnsTimeout: 10_000 };

/**
 * A mailer from configuration. Without SMTP, each message is written as an .eml file to
 * the outbox directory and its recipient and subject are logged, so that a single-machine
 * install with no mail server still hands confirmation links to its operator.
 */
export function createMailer(config: MailConfig, log: Logger): Mailer {
  if (config.smtpUrl) {
    // Pooled: a burst of notification mail reuses a few connections instead of opening one per
    // mail. nodemailer ignores every other option beside `url`, so the URL is parsed here (its
    // query parameters still win).
    const transport = nodemailer.createTransport({ pool: true, maxConnections: 10, maxMessages: 100, ...SMTP_TIMEOUTS, ...parseConnectionUrl(config.smtpUrl) });
    return {
      outbox: undefined,
      close: () => transport.close(),
      send: async (mail) => {
        await transport.sendMail({ ...mail, from: mail.from ?? config.from });
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    outbox: config.outboxDir,
    close: () => undefined,
    send: async (mail) => {
      const info = await transport.sendMail({ ...mail, from: mail.from ?? config.from });
      // Mail holds confirmation links: private, as the rest of the data directory (lib/private-files.ts).
      await fs.mkdir(config.outboxDir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const file = path.join(config.outboxDir, `${Date.now()}-${crypto.randomBytes(4).toString('hex')}.eml`);
      await fs.writeFile(file, info.message as Buffer, { mode: PRIVATE_FILE_MODE });
      log.info({ to: mail.to, subject: mail.subject, file }, 'mail written to the outbox (no SMTP configured)');
    },
  };
}
