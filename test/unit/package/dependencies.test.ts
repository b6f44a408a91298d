import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');

interface Manifest {
  name: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  oclif: { plugins: string[] };
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

/** Every source file under a folder, skipping what is generated or installed. */
function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|js|mjs)$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .filter((f) => !f.split('/').some((part) => part === 'node_modules' || part === 'dist'));
}

// Static imports and re-exports, side-effect imports, and dynamic imports with a literal.
const SPECIFIERS = [
  /^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*'([^'.][^']*)'/gm,
  /^\s*import\s*'([^'.][^']*)'/gm,
  /\bimport\(\s*'([^'.][^']*)'\s*\)/g,
];

/** The packages a file imports by name (node: builtins left out). */
function packagesOf(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const names = new Set<string>();
  for (const spec of SPECIFIERS.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!))) {
    // The package's own name: the SDK's public entry point, as its users import it.
    if (spec.startsWith('node:') || builtinModules.includes(spec) || spec.split('/')[0] === manifest.name)
      continue;
    const parts = spec.split('/');
    names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
  }
  return names;
}

function importers(paths: string[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const f of paths) for (const name of packagesOf(f)) by.set(name, [...(by.get(name) ?? []), f]);
  return by;
}

// What ships and runs: the daemon, the CLI and its launchers. The console UI is bundled by
// vite at build time, so its imports are build-time (dev) dependencies.
const runtimeFiles = [...files('src'), ...files('commands'), ...files('bin')].filter(
  (f) => !f.startsWith('src/console/ui/'),
);
const runtime = importers(runtimeFiles);

describe('package.json dependencies', () => {
  it('every runtime dependency is imported by what ships (oclif plugins are loaded by name)', () => {
    const unused = Object.keys(manifest.dependencies).filter(
      (name) => !runtime.has(name) && !manifest.oclif.plugins.includes(name),
    );
    expect(unused).toEqual([]);
  });

  it('every package that shipped code imports is a runtime dependency', () => {
    const unlisted = [...runtime.keys()].filter((name) => !(name in manifest.dependencies));
    expect(unlisted).toEqual([]);
  });

  it('every package the tests and the console UI import is listed', () => {
    const listed = { ...manifest.dependencies, ...manifest.devDependencies };
    const built = importers([...files('test'), ...files('src/console/ui')]);
    const unlisted = [...built.keys()].filter((name) => !(name in listed));
    expect(unlisted).toEqual([]);
  });
});
