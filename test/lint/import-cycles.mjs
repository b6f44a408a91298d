#!/usr/bin/env node
// The import-cycle check of `npm run lint`: dependency-cruiser resolves every import of
// src/ and commands/ (.dependency-cruiser.cjs) and reports file cycles; the same graph,
// folded to top-level folders, must have no cycle either. Prints each cycle, exits 1 on any.
// Run from the repository root, or from any tree laid out the same way (the tests do).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const CONFIG = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.dependency-cruiser.cjs');

/**
 * The folder a file counts under: `src/<folder>` (a store adapter counts as `src/store`,
 * the layer whose ports it implements), and `commands` as one.
 */
export function folderOf(path) {
  return /^(src\/[^/]+|commands)\//.exec(path)?.[1];
}

/** Folder edges with one file edge each as the witness, from dependency-cruiser's modules. */
function folderGraph(modules) {
  const edges = new Map();
  for (const m of modules) {
    const from = folderOf(m.source);
    for (const d of m.dependencies) {
      const to = folderOf(d.resolved);
      if (!from || !to || from === to) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from).has(to)) edges.get(from).set(to, `${m.source} -> ${d.resolved}`);
    }
  }
  return edges;
}

/** Strongly connected components with more than one folder (Tarjan), each as one closed walk. */
export function folderCycles(modules) {
  const edges = folderGraph(modules);
  const nodes = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])])].sort();
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of [...(edges.get(v)?.keys() ?? [])].sort()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return components.map((component) => ({ folders: component, edges: witnesses(edges, component) }));
}

/** Every folder edge inside one component, with the file import behind it. */
function witnesses(edges, component) {
  const inside = new Set(component);
  return component.flatMap((from) =>
    [...(edges.get(from) ?? new Map())]
      .filter(([to]) => inside.has(to))
      .map(([to, via]) => ({ from, to, via })),
  );
}

/** Each file cycle as the walk dependency-cruiser found, `(type)` marking type-only imports. */
function fileCycles(violations) {
  return violations
    .filter((v) => v.type === 'cycle')
    .map((v) => [
      v.from,
      ...v.cycle.map((step) => `${step.name}${step.dependencyTypes.includes('type-only') ? ' (type)' : ''}`),
    ]);
}

export async function importCycles(roots = ['src', 'commands']) {
  const options = await extractDepcruiseOptions(CONFIG);
  const tsConfig = extractTSConfig(options.tsConfig.fileName);
  const result = await cruise(roots, { ...options, validate: true }, {}, { tsConfig });
  const { modules, summary } = result.output;
  const unresolved = summary.violations
    .filter((v) => v.type !== 'cycle')
    .map((v) => `error ${v.rule.name}: ${v.from} -> ${v.to}`);
  return {
    files: fileCycles(summary.violations),
    folders: folderCycles(modules),
    unresolved,
    modules: modules.filter((m) => folderOf(m.source)).length,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { files, folders, unresolved, modules } = await importCycles();
  for (const line of unresolved) process.stdout.write(`${line}\n`);
  for (const walk of files) process.stdout.write(`error no-file-cycle: ${walk.join(' -> ')}\n`);
  for (const { folders: names, edges } of folders) {
    process.stdout.write(`error no-folder-cycle: ${names.join(', ')}\n`);
    for (const { from, to, via } of edges) process.stdout.write(`    ${from} -> ${to}  (${via})\n`);
  }
  process.stdout.write(
    `import cycles in ${modules} modules: ${files.length} between files, ${folders.length} between top-level folders\n`,
  );
  process.exitCode = files.length + folders.length + unresolved.length === 0 ? 0 : 1;
}
