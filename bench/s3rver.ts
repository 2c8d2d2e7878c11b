// s3rver in a process of its own for the benches (test/api/uploads-support.ts startS3, with the
// tests' ListParts/AbortMultipartUpload addition): prints its settings as one JSON line, and
// removes its files on SIGTERM.
import { startS3 } from '../test/api/uploads-support.js';

const s3 = await startS3();
process.stdout.write(`${JSON.stringify(s3.env)}\n`);
process.on('SIGTERM', () => {
  void s3.close().finally(() => process.exit(0));
});
