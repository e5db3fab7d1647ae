import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { until } from './until.js';

/** Debian's nginx, or PARLEY_NGINX; undefined when the machine has none. */
export function findNginx(): string | undefined {
  const candidates = [process.env.PARLEY_NGINX, '/usr/sbin/nginx', '/usr/bin/nginx'];
  return candidates.find((c): c is string => !!c && fs.existsSync(c));
}

/**
 * A documented configuration (docs/nginx/<name>) with this test's values on the lines the
 * file marks `# EDIT`, in their order: each replacement must keep the line's directive, so
 * only addresses, ports and file names change and the rest runs exactly as the docs say.
 */
export function documentedSite(name: string, replacements: string[]): string {
  const text = fs.readFileSync(path.join('docs', 'nginx', name), 'utf8');
  let i = 0;
  const out = text.split('\n').map((line) => {
    const m = /^(\s*)(\S+)\s[^;]*;\s*# EDIT\b.*$/.exec(line);
    if (!m) return line;
    const replacement = replacements[i++];
    if (replacement === undefined) throw new Error(`${name}: more "# EDIT" lines than the test replaces (at "${line.trim()}")`);
    if (replacement.split(/\s/)[0] !== m[2]) throw new Error(`${name}: "${replacement}" would replace the directive of "${line.trim()}"`);
    return `${m[1]}${replacement}  # EDITED by the test`;
  });
  if (i !== replacements.length) throw new Error(`${name}: ${i} "# EDIT" lines, the test has ${replacements.length} values`);
  return out.join('\n');
}

/** A self-signed certificate for the host and its subdomains, made with the openssl CLI. */
export function selfSignedCertificate(dir: string, host: string): { cert: string; key: string; pem: Buffer } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const r = spawnSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-keyout', key, '-out', cert, '-subj', `/CN=${host}`, '-addext', `subjectAltName=DNS:${host},DNS:*.${host}`,
  ], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl req failed: ${r.stderr}`);
  return { cert, key, pem: fs.readFileSync(cert) };
}

export interface Nginx {
  dir: string;
  /** Its error log so far, for a failing test's message. */
  errorLog(): string;
  /** The requests it has logged, with the upstream (address:port) that answered each. */
  accessLog(): { request: string; status: number; upstream: string }[];
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

/**
 * A throwaway nginx in the foreground (`daemon off`), with its own prefix folder for the pid
 * file, logs and temporary files, serving `site` (a server configuration, as in
 * sites-enabled/) and up once `port` accepts connections.
 */
export async function startNginx(bin: string, dir: string, site: string, port: number): Promise<Nginx> {
  // Run as root, nginx's workers drop to `nobody`: they must reach the temporary folders
  // (created by nginx for that user) through this folder. The private key stays 0600,
  // read by the master only.
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, 'site.conf'), site);
  const errorLog = path.join(dir, 'error.log');
  fs.writeFileSync(path.join(dir, 'nginx.conf'), [
    'daemon off;',
    'worker_processes 1;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${errorLog} warn;`,
    'events { worker_connections 256; }',
    'http {',
    // Tab-separated, with the node that answered (a cluster test checks the spread).
    "  log_format parley_test '$request\\t$status\\t$upstream_addr';",
    `  access_log ${path.join(dir, 'access.log')} parley_test;`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${path.join(dir, t)};`),
    `  include ${path.join(dir, 'site.conf')};`,
    '}',
    '',
  ].join('\n'));
  const child = spawn(bin, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', errorLog], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const readLog = (): string => (fs.existsSync(errorLog) ? fs.readFileSync(errorLog, 'utf8') : '');
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`nginx exited at start: ${out}${readLog()}`);
    return accepts(port);
  }, { timeoutMs: 20_000, message: () => `nginx to listen on ${port}: ${out}${readLog()}` });
  return {
    dir, errorLog: readLog,
    accessLog: () => {
      const file = path.join(dir, 'access.log');
      const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      return text.split('\n').filter(Boolean).map((l) => {
        const [request = '', status = '', upstream = ''] = l.split('\t');
        return { request, status: Number(status), upstream };
      });
    },
    stop: async () => {
      // SIGQUIT: nginx's graceful stop; the long polls of the tests are over by then.
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
    },
  };
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string | number>;
  body?: Buffer | string;
  /** The CA that signed the server's certificate (https only). */
  ca?: Buffer;
  /** The loopback address this client connects from (127.0.0.0/8 is all local on Linux). */
  localAddress?: string;
}

/** One request with node's http(s) client: the source address, TLS trust and Host are the test's to choose. */
export function request(url: string, host: string, opts: RequestOptions = {}): Promise<Answer> {
  const u = new URL(url);
  const secure = u.protocol === 'https:';
  const lib = secure ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(u, {
      method: opts.method ?? 'GET', agent: false, localAddress: opts.localAddress,
      headers: { host, ...(opts.headers ?? {}) },
      ...(secure ? { ca: opts.ca, servername: host } : {}),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A multipart body with one file part, as a client uploads it. */
export function multipartFile(name: string, content: Buffer): { body: Buffer; contentType: string } {
  // A fixed-length boundary: tests size bodies to the byte from an empty file's wrapping.
  const boundary = `----parley${crypto.randomBytes(12).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, content, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A fresh folder for one nginx. */
export function nginxDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'parley-nginx-'));
}
