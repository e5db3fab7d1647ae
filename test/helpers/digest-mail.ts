import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';

export interface ParsedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Map<string, unknown>;
  file: string;
}

/** Every mail in a file outbox (no SMTP configured), parsed, oldest first. */
export async function readOutbox(outbox: string): Promise<ParsedMail[]> {
  if (!fs.existsSync(outbox)) return [];
  const out: ParsedMail[] = [];
  for (const file of fs.readdirSync(outbox).sort()) {
    const m = await simpleParser(fs.readFileSync(path.join(outbox, file)));
    const to = Array.isArray(m.to) ? m.to.map((a) => a.text).join(', ') : (m.to?.text ?? '');
    out.push({ to, subject: m.subject ?? '', text: m.text ?? '', html: typeof m.html === 'string' ? m.html : '', headers: m.headers, file });
  }
  return out;
}

/** The digests (by subject) in the outbox addressed to `email`. */
export async function digestsTo(outbox: string, email: string): Promise<ParsedMail[]> {
  return (await readOutbox(outbox)).filter((m) => m.to === email && m.subject.startsWith('Zulip digest for '));
}

/** Empties the outbox between cases. */
export function clearOutbox(outbox: string): void {
  if (fs.existsSync(outbox)) for (const f of fs.readdirSync(outbox)) fs.rmSync(path.join(outbox, f));
}
