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
// `svc --version` is answered here, before oclif and its plugins load (two thirds of the
// start-up time), with the line oclif's own `--version` prints: `name/version platform-arch
// node-version`. Where oclif would call the platform `wsl` it is left to oclif, which knows how.
const line = process.argv[2] === '--version' ? await versionLine() : undefined;
if (line !== undefined) {
  process.stdout.write(line + '\n');
} else {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}

async function versionLine() {
  const { readFileSync, existsSync } = await import('node:fs');
  const os = await import('node:os');
  if (process.platform === 'linux') {
    let procVersion = '';
    try {
      procVersion = readFileSync('/proc/version', 'utf8');
    } catch {
      // No /proc: nothing there says WSL.
    }
    const wslHint =
      os.release().toLowerCase().includes('microsoft') ||
      procVersion.toLowerCase().includes('microsoft') ||
      existsSync('/proc/sys/fs/binfmt_misc/WSLInterop') ||
      existsSync('/run/WSL');
    if (wslHint) return undefined;
  }
  const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const arch = os.arch() === 'ia32' ? 'x86' : os.arch();
  return `${pjson.name}/${pjson.version || '0.0.0'} ${os.platform()}-${arch} node-${process.version}`;
}
