#!/usr/bin/env node
// Check the runtime before loading anything that needs a current one.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(
    'svc needs Node.js 20.19 or newer; this is ' +
      process.versions.node +
      '.\n' +
      'Install a current Node.js LTS release and run the command again.\n',
  );
  process.exit(1);
}
const { execute } = await import('@oclif/core');
await execute({ dir: import.meta.url });
