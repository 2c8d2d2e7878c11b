// The lingering close (after nginx's `lingering_close`; docs/architecture.md, "How a request
// travels"): a reply that refuses a body before it all arrived reads the rest and throws it away,
// within bounds in bytes and time, before the socket closes. Closed at once, the kernel would
// answer the unread bytes with a reset, and a client that writes its whole body before reading
// gets ECONNRESET instead of the 4xx that explains the refusal.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * At most this many bytes of a refused body are read and discarded. Reading
 * costs no memory (each chunk is dropped) and about what receiving a valid
 * upload costs; the bound stops a client from making the service read a
 * refused 4 GiB upload, and still covers photos and forms sent whole.
 */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;

/**
 * And for at most this long from the refusal (nginx's lingering_time is 30 s):
 * long enough for a megabyte or so on a slow line, short enough that a client
 * that sends slowly, or never stops, does not hold the connection.
 */
export const LINGER_MAX_MS = 10_000;

/**
 * A client that sends nothing for this long has stopped (it read the reply,
 * or it never will): closed then (nginx's lingering_timeout is 5 s).
 * Past any of the three bounds the socket is destroyed, unread bytes and all.
 */
export const LINGER_IDLE_MS = 2_000;

const lingering = new WeakSet<Socket>();

/**
 * Marks the reply as the connection's last when the request body has not all
 * arrived, and reads and discards the rest of it (bounded) so that the reply
 * reaches a client still sending. Call it before the reply is sent.
 */
export function closeAfterReply(req: FastifyRequest, reply: FastifyReply): void {
  if (req.raw.complete) return;
  reply.header('connection', 'close');
  discardRestOfBody(req.raw);
}

function discardRestOfBody(raw: IncomingMessage): void {
  const socket = raw.socket as (Socket & { destroySoon?: () => void }) | null;
  if (!socket || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  const cut = () => socket.destroy();
  const deadline = setTimeout(cut, LINGER_MAX_MS);
  const idle = setTimeout(cut, LINGER_IDLE_MS);
  socket.once('close', () => {
    clearTimeout(deadline);
    clearTimeout(idle);
  });
  // Whoever read the body has let go of it already (the multipart parser and the
  // temporary file unpipe themselves on a refusal); the bytes counted here are all
  // that arrive from now on.
  let discarded = 0;
  raw.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_MAX_BYTES) cut();
    else idle.refresh();
  });
  raw.resume();
  // Node ends a `Connection: close` reply with socket.destroySoon(): the socket
  // is destroyed as soon as the reply is written, whatever is still arriving.
  // Here the reply is followed by our FIN, and the socket is destroyed once the
  // body has ended (nothing unread, so no reset) or a bound is reached.
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const destroyWhenWritten = () => (socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy()));
    if (raw.complete) destroyWhenWritten();
    else raw.once('end', destroyWhenWritten);
  };
}
