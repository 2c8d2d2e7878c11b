// Whether a command's module is the process's entry (run as `node dist/cli/x.js`, through a
// symlinked bin too), not imported by a test or another command.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return moduleUrl === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}
