import net from 'node:net';

/**
 * One long-polling client over one keep-alive socket, speaking just enough HTTP/1.1 for
 * GET /events answers (which always carry Content-Length). With 10,000 of these sharing two
 * cores with the server, a general-purpose HTTP client spent more CPU per poll than the
 * server did, so the benchmark would have measured its own load generator.
 */
export class RawPoller {
  private socket: net.Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: ((r: { status: number; body: string; at: number }) => void) | undefined;
  private failed: ((e: Error) => void) | undefined;

  constructor(host: string, port: number, private hostHeader: string) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk) => this.onData(chunk));
    const fail = (e: Error) => {
      const f = this.failed;
      this.waiting = this.failed = undefined;
      f?.(e);
    };
    this.socket.on('error', fail);
    this.socket.on('close', () => fail(new Error('closed')));
  }

  /**
   * `credentials`: an Authorization header's value, or `{ cookie }` for the web app's session.
   * `at`: when the answer's last bytes were read (performance.now()), before any promise continuation ran.
   */
  get(path: string, credentials: string | { cookie: string }): Promise<{ status: number; body: string; at: number }> {
    const header = typeof credentials === 'string' ? `Authorization: ${credentials}` : `Cookie: ${credentials.cookie}`;
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
      this.socket.write(`GET ${path} HTTP/1.1\r\nHost: ${this.hostHeader}\r\n${header}\r\n\r\n`);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    const at = performance.now();
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = this.buffer.toString('latin1', 0, headEnd);
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
    if (!Number.isFinite(length)) throw new Error(`answer without Content-Length: ${head}`);
    if (this.buffer.length < headEnd + 4 + length) return;
    const body = this.buffer.toString('utf8', headEnd + 4, headEnd + 4 + length);
    this.buffer = this.buffer.subarray(headEnd + 4 + length);
    const resolve = this.waiting;
    this.waiting = this.failed = undefined;
    resolve?.({ status: Number(head.slice(9, 12)), body, at });
  }
}
