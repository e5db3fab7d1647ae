/**
 * A throwaway OpenLDAP server (Debian's slapd) for the LDAP tests: its own directory in a
 * temp dir, the mdb backend, the core/cosine/inetOrgPerson schemas, a CA and server
 * certificate made with the openssl CLI (StartTLS on the ldap:// port, TLS on the ldaps://
 * one), the entries given as LDIF loaded with slapadd before it starts.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { Client } from 'ldapts';
import { until } from '../helpers/until.js';

export const SLAPD = '/usr/sbin/slapd';
export const SUFFIX = 'dc=parley,dc=test';
export const ROOT_DN = `cn=admin,${SUFFIX}`;
export const ROOT_PASSWORD = 'root-secret';

/** Why the LDAP tests cannot run on this machine, or null. */
export function slapdMissing(): string | null {
  for (const tool of [SLAPD, '/usr/sbin/slapadd', '/usr/bin/openssl']) {
    if (!fs.existsSync(tool)) return `${tool} is not installed (Debian: apt-get install slapd ldap-utils openssl)`;
  }
  return null;
}

export interface Slapd {
  /** ldap://127.0.0.1:PORT (plain, or StartTLS). */
  url: string;
  /** ldaps://127.0.0.1:PORT. */
  ldapsUrl: string;
  /** The PEM of the CA that signed the server's certificate. */
  ca: string;
  stop(): Promise<void>;
}

/** Distinct free ports: all held open together, so that no two answers are the same port. */
async function freePorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => net.createServer());
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

function makeCertificates(dir: string): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Parley test LDAP CA');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext');
}

/** The suffix's own entry and the organizational units the tests put people and services in. */
const BASE_LDIF = `dn: ${SUFFIX}
objectClass: dcObject
objectClass: organization
dc: parley
o: Parley Test

dn: ou=people,${SUFFIX}
objectClass: organizationalUnit
ou: people

dn: ou=services,${SUFFIX}
objectClass: organizationalUnit
ou: services
`;

/** An inetOrgPerson under ou=people (no mail when `mail` is null). */
export function person(uid: string, cn: string, mail: string | null, password: string): string {
  return [
    `dn: uid=${uid},ou=people,${SUFFIX}`, 'objectClass: inetOrgPerson', `uid: ${uid}`, `cn: ${cn}`, `sn: ${cn.split(' ').pop()}`,
    ...(mail === null ? [] : [`mail: ${mail}`]), `userPassword: ${password}`, '',
  ].join('\n');
}

/** A service account under ou=services, what PARLEY_LDAP_BIND_DN names. */
export function service(cn: string, password: string): string {
  return [`dn: cn=${cn},ou=services,${SUFFIX}`, 'objectClass: person', `cn: ${cn}`, `sn: ${cn}`, `userPassword: ${password}`, ''].join('\n');
}

export async function startSlapd(entries: string[]): Promise<Slapd> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-slapd-'));
  fs.mkdirSync(path.join(dir, 'db'));
  makeCertificates(dir);
  const conf = path.join(dir, 'slapd.conf');
  fs.writeFileSync(conf, `include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile ${dir}/slapd.pid
TLSCACertificateFile ${dir}/ca.pem
TLSCertificateFile ${dir}/server.pem
TLSCertificateKeyFile ${dir}/server.key
database mdb
suffix "${SUFFIX}"
rootdn "${ROOT_DN}"
rootpw ${ROOT_PASSWORD}
directory ${dir}/db
access to attrs=userPassword by anonymous auth by self read by * none
access to * by * read
`);
  const ldif = path.join(dir, 'entries.ldif');
  fs.writeFileSync(ldif, [BASE_LDIF, ...entries].join('\n'));
  execFileSync('/usr/sbin/slapadd', ['-f', conf, '-l', ldif], { stdio: 'pipe' });
  // A port found free can be taken by another process before slapd binds it: then again.
  for (let attempt = 1; ; attempt++) {
    try {
      const { url, ldapsUrl, stop } = await runSlapd(dir, conf);
      return { url, ldapsUrl, ca: fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8'), stop };
    } catch (err) {
      if (attempt === 3) {
        fs.rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
}

async function runSlapd(dir: string, conf: string): Promise<Omit<Slapd, 'ca'>> {
  const [port, ldapsPort] = await freePorts(2);
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${ldapsPort}`;
  // -d keeps it in the foreground, a child of the test that kills it; root only where the
  // machine runs tests as root (slapd then needs no -u).
  const child: ChildProcess = spawn(SLAPD, ['-h', `${url}/ ${ldapsUrl}/`, '-f', conf, '-d', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  let exited: number | null = null;
  child.on('exit', (code) => { exited = code ?? -1; });
  const kill = async (): Promise<void> => {
    if (exited !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  };
  try {
    await until(async () => {
      if (exited !== null) throw new Error(`slapd exited (${exited}): ${stderr}`);
      const client = new Client({ url, connectTimeout: 1000, timeout: 1000 });
      try {
        await client.search(SUFFIX, { scope: 'base' });
        return true;
      } catch {
        return false;
      } finally {
        await client.unbind().catch(() => undefined);
      }
    }, { message: `slapd answering on ${url}` });
  } catch (err) {
    await kill();
    throw err;
  }
  return {
    url, ldapsUrl,
    stop: async () => {
      await kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
