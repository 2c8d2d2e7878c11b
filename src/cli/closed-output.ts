// A command's reader may go away before it has written (`admin … | head -1`,
// `… | true`): the write then fails with EPIPE, which Node raises as an
// unhandled 'error' event and a stack trace. What the command did is done
// either way, and nobody is left to read: the command ends with its own exit
// status and says nothing more (as a program killed by SIGPIPE would).
import type { Writable } from 'node:stream';

export function quietWhenReaderGone(...streams: Writable[]): void {
  for (const stream of streams) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') return;
      throw err;
    });
  }
}
