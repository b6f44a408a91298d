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
  ],
  options: {
    // Our own code only; packages and node: builtins are leaves and cannot close a cycle.
    includeOnly: '^(src|commands)/',
    // Keep `import type` and type-only re-exports, which TypeScript erases before any
    // JavaScript-level tool would see them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
