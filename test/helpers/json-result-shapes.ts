import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * The shape of each command's `--json` result, read from its declared types with the
 * TypeScript checker: what `run()` resolves to, or for a streamed list (`this.list(pages,
 * …)`) the page type it streams. A shape is plain JSON: 'string', 'number', 'boolean',
 * 'null', a literal, `[shape]` for an array, `{anyOf: [...]}` for a union and an object of
 * shapes (an optional key ends in '?'), so a diff of the snapshot reads as a diff of the
 * contract.
 */
export type Shape = string | number | boolean | null | Shape[] | { [key: string]: Shape };

function commandFiles(root: string): string[] {
  return readdirSync(join(root, 'commands'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** commands/approvals/list.ts -> approvals:list; commands/export/index.ts -> export. */
function commandId(root: string, file: string): string {
  const parts = relative(join(root, 'commands'), file).replace(/\.ts$/, '').split(sep);
  if (parts.at(-1) === 'index') parts.pop();
  return parts.join(':');
}

export function jsonResultShapes(root: string): Record<string, { json: boolean; result?: Shape }> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const files = commandFiles(root);
  const program = ts.createProgram({ rootNames: files, options: { ...config.options, noEmit: true } });
  const checker = program.getTypeChecker();
  const out: Record<string, { json: boolean; result?: Shape }> = {};
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const cls = source.statements.find(
      (s): s is ts.ClassDeclaration =>
        ts.isClassDeclaration(s) && (ts.getCombinedModifierFlags(s) & ts.ModifierFlags.Default) !== 0,
    );
    if (!cls) throw new Error(`${file}: no default-exported command class`);
    const json = !cls.members.some(
      (m) =>
        ts.isPropertyDeclaration(m) &&
        m.name.getText(source) === 'enableJsonFlag' &&
        m.initializer?.kind === ts.SyntaxKind.FalseKeyword,
    );
    const id = commandId(root, file);
    if (!json) {
      out[id] = { json };
      continue;
    }
    out[id] = { json, result: new ShapeWriter(checker).of(resultType(checker, cls, file)) };
  }
  return out;
}

/** What `--json` prints: the streamed page type for a list, else what `run()` resolves to. */
function resultType(checker: ts.TypeChecker, cls: ts.ClassDeclaration, file: string): ts.Type {
  const run = cls.members.find(
    (m): m is ts.MethodDeclaration => ts.isMethodDeclaration(m) && m.name.getText() === 'run',
  );
  if (!run?.body) throw new Error(`${file}: no run() method`);
  let listed: ts.Type | undefined;
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.expression.kind === ts.SyntaxKind.ThisKeyword &&
      node.expression.name.text === 'list'
    ) {
      const sig = checker.getResolvedSignature(node)!;
      const pages = checker.getTypeOfSymbolAtLocation(sig.parameters[0]!, node);
      // AsyncIterable<Page<T>>: the page is what --json prints, one document.
      listed = checker.getTypeArguments(pages as ts.TypeReference)[0];
    }
    ts.forEachChild(node, visit);
  };
  visit(run.body);
  if (listed) return listed;
  const sig = checker.getSignatureFromDeclaration(run)!;
  const returned = checker.getReturnTypeOfSignature(sig);
  return checker.getAwaitedType(returned) ?? returned;
}

class ShapeWriter {
  private readonly open = new Set<ts.Type>();

  constructor(private readonly checker: ts.TypeChecker) {}

  of(type: ts.Type): Shape {
    const c = this.checker;
    const f = type.flags;
    if (f & ts.TypeFlags.Void || f & ts.TypeFlags.Undefined) return 'undefined';
    if (f & ts.TypeFlags.Null) return 'null';
    if (f & ts.TypeFlags.Any || f & ts.TypeFlags.Unknown) return 'unknown';
    if (type.isStringLiteral() || type.isNumberLiteral()) return type.value;
    if (f & ts.TypeFlags.BooleanLiteral) return c.typeToString(type) === 'true';
    if (f & ts.TypeFlags.StringLike) return 'string';
    if (f & ts.TypeFlags.NumberLike) return 'number';
    if (f & ts.TypeFlags.BigIntLike) return 'bigint';
    if (f & ts.TypeFlags.Boolean) return 'boolean';
    if (type.isUnion()) return this.union(type.types);
    if (c.isArrayType(type) || c.isTupleType(type)) {
      const args = c.getTypeArguments(type as ts.TypeReference);
      return c.isTupleType(type) ? args.map((a) => this.of(a)) : [this.of(args[0]!)];
    }
    if (this.open.has(type)) return `<recursive ${c.typeToString(type)}>`;
    this.open.add(type);
    try {
      const obj: Record<string, Shape> = {};
      const index = type.getStringIndexType();
      if (index) obj['[key: string]'] = this.of(index);
      for (const p of c.getPropertiesOfType(type)) {
        const decl = p.valueDeclaration ?? p.declarations?.[0];
        if (decl && (ts.isMethodDeclaration(decl) || ts.isMethodSignature(decl))) continue;
        const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
        const t = c.getTypeOfSymbol(p);
        obj[optional ? `${p.name}?` : p.name] = this.of(optional ? c.getNonNullableType(t) : t);
      }
      return obj;
    } finally {
      this.open.delete(type);
    }
  }

  /** A union as its members; `boolean` stays one member, and a lone member is itself. */
  private union(types: readonly ts.Type[]): Shape {
    const members: Shape[] = [];
    const booleans = types.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    if (booleans.length === 2) members.push('boolean');
    for (const t of types) {
      if (booleans.length === 2 && t.flags & ts.TypeFlags.BooleanLiteral) continue;
      members.push(this.of(t));
    }
    // Sorted: the checker orders union members by internal type ids, which move when
    // unrelated code changes; the snapshot should change only when the contract does.
    const sorted = members
      .map((m) => [JSON.stringify(m), m] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, m]) => m);
    return sorted.length === 1 ? sorted[0]! : { anyOf: sorted };
  }
}
