#!/usr/bin/env node
// The offline verifier under its own name: `svc-verify FILE --public-key KEY` is `svc verify`.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(
    'svc-verify needs Node.js 20.19 or newer; this is ' +
      process.versions.node +
      '.\n' +
      'Install a current Node.js LTS release and run the command again.\n',
  );
  process.exit(2);
}
const { execute } = await import('@oclif/core');
await execute({ dir: import.meta.url, args: ['verify', ...process.argv.slice(2)] });
