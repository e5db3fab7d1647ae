import type { InjectOptions } from 'fastify';
import { basic, HOST, type TestApp, type TestUser } from './app.js';

export interface Part {
  /** The form field's name (any name: Zulip takes the file under whatever field it came). */
  field: string;
  /** A file part when set; a plain field otherwise. */
  filename?: string;
  contentType?: string;
  content: string | Buffer;
}

/** A multipart/form-data body, built by hand so that tests control every part. */
export function multipartBody(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----parley${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.field}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"\r\nContent-Type: ${p.contentType ?? 'application/octet-stream'}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`), Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POSTs a multipart body through inject; `as` null sends no credentials. */
export async function postMultipart(t: TestApp, url: string, as: TestUser | null, parts: Part[]): Promise<{ status: number; body: any }> {
  const { body, contentType } = multipartBody(parts);
  const headers: Record<string, string> = { host: HOST, 'content-type': contentType };
  if (as) headers.authorization = basic(as.email, as.apiKey);
  const res = await t.app.http.inject({ method: 'POST', url, headers, payload: body } as InjectOptions);
  return { status: res.statusCode, body: res.json() };
}

/** One file uploaded through POST /user_uploads; answers its uri. */
export async function uploadOne(t: TestApp, as: TestUser, name: string, content: string | Buffer = 'hello'): Promise<string> {
  const r = await postMultipart(t, '/api/v1/user_uploads', as, [{ field: 'file', filename: name, content }]);
  if (r.status !== 200) throw new Error(`upload failed: ${JSON.stringify(r.body)}`);
  return r.body.uri as string;
}

/** GET of an upload with raw bytes kept; `as` null sends no credentials. */
export async function fetchUpload(t: TestApp, url: string, as: TestUser | null): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const headers: Record<string, string> = { host: HOST };
  if (as) headers.authorization = basic(as.email, as.apiKey);
  const res = await t.app.http.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, headers: res.headers, body: res.body };
}
