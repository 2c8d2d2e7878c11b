#!/usr/bin/env node
// The package's command (`npx mps sync ./Wedding --gallery Clients/Smith`): dispatches a subcommand
// to its entry in the build, through scripts/built.mjs (built first when missing or stale).
const COMMANDS = { sync: 'cli/sync.js', api: 'cli/api.js' };
const [command, ...rest] = process.argv.slice(2);
if (!command || !(command in COMMANDS) || command === '--help' || command === '-h') {
  const wanted = command === '--help' || command === '-h';
  (wanted ? process.stdout : process.stderr).write('usage: mps sync FOLDER --gallery PATH [flags]   (mps sync --help)\n       mps api METHOD PATH [name=value ...]      (mps api --help)\n');
  process.exitCode = wanted ? 0 : 2;
} else {
  process.argv.splice(2, process.argv.length - 2, COMMANDS[command], ...rest);
  await import('../scripts/built.mjs');
}
