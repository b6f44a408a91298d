// The file-level import graph of src/ and commands/, as dependency-cruiser resolves it.
// `node test/lint/import-cycles.mjs` (part of `npm run lint`) runs it and adds the
// top-level-folder check; `npx depcruise src commands` runs the file-level rule alone.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-file-cycle',
      severity: 'error',
      comment:
        'No import cycles between files (DESIGN.md). Type-only imports count: a type cycle ' +
        'still ties the two files into one unit that neither can change, move or test alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolved-local',
      severity: 'error',
      comment: 'A local import the resolver cannot follow is an edge the cycle check cannot see.',
      from: {},
      to: { couldNotResolve: true, path: '^[.]' },
    },
  ],
  options: {
    // Packages and node: builtins are leaves: they cannot close a cycle through our code.
    doNotFollow: { path: ['node_modules'], dependencyTypes: ['core'] },
    // Keep `import type` and type-only re-exports, which TypeScript erases before any
    // JavaScript-level tool would see them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
