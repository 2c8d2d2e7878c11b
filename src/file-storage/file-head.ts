// The first bytes of a file on this machine. The handle is closed on every
// path: a FileHandle left to the garbage collector is an uncaught error that
// ends the process on Node 26 (a deprecation warning before it).
import { open } from 'node:fs/promises';

export async function readFileHead(path: string, length: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
