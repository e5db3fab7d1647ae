import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a refused request's remaining body is read and dropped before the socket is cut. */
const LINGER_MS = 2_000;

/**
 * A refusal sent before its request's body was read (a 24 MB upload without a login):
 * the connection closes after the answer, but not at once. Closing a socket with unread
 * bytes in it makes the kernel reset the connection, and a reset can reach the client
 * before it has read the answer. So the answer is followed by our FIN and the socket stops
 * reading (the rest of the body waits in the kernel's buffers, never in ours); it is cut
 * after LINGER_MS, by when the client has read the answer (or the client closed first).
 */
export function lingerAfterAnswer(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  // Node's HTTP server calls destroySoon() once an answer marked `connection: close` is out.
  socket.destroySoon = function (this: Socket) {
    req.unpipe();
    req.pause();
    this.pause();
    this.end();
    const cut = setTimeout(() => this.destroy(), LINGER_MS);
    cut.unref();
    this.once('close', () => clearTimeout(cut));
  };
}
