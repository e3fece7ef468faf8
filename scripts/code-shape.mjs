// Measures the shape of src/ for docs/code-shape.md (issue #21): the length of every function
// (declarations, expressions, arrows, methods, accessors, constructors — nested ones counted on
// their own, each from its first token to its closing line), the names src/index.ts exports, and
// the `as unknown as` double casts. Uses the TypeScript compiler API (typescript is a dev
// dependency; 7.x serves its AST through `typescript/unstable/*`).
//
//   node scripts/code-shape.mjs            a summary
//   node scripts/code-shape.mjs --longest 20   and the 20 longest functions
import path from "node:path";
import { SyntaxKind } from "typescript/unstable/ast";
import { API } from "typescript/unstable/sync";

const root = path.resolve(import.meta.dirname, "..");
const longestArg = process.argv.indexOf("--longest");
const longest = longestArg === -1 ? 0 : Number(process.argv[longestArg + 1] ?? 10);

const functionKinds = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
  SyntaxKind.Constructor,
]);

const api = new API({ cwd: root });
try {
  const snapshot = api.updateSnapshot({ openProjects: [path.join(root, "tsconfig.json")] });
  const project = snapshot.getProjects()[0];
  const srcDir = path.join(root, "src") + path.sep;
  const files = project.program
    .getSourceFileNames()
    .filter((name) => name.startsWith(srcDir) && name.endsWith(".ts") && !name.endsWith(".d.ts"));

  const functions = [];
  let doubleCasts = 0;
  for (const fileName of files) {
    const file = project.program.getSourceFile(fileName);
    if (file === undefined) continue;
    const lineOf = (position) => file.getLineAndCharacterOfPosition(position).line;
    const visit = (node) => {
      if (functionKinds.has(node.kind) && node.body !== undefined) {
        const lines = lineOf(node.end) - lineOf(node.getStart(file)) + 1;
        functions.push({ lines, where: `${path.relative(root, fileName)}:${lineOf(node.getStart(file)) + 1}`, name: nameOf(node) });
      }
      if (
        node.kind === SyntaxKind.AsExpression &&
        node.expression.kind === SyntaxKind.AsExpression &&
        node.expression.type.kind === SyntaxKind.UnknownKeyword
      ) {
        doubleCasts += 1;
      }
      node.forEachChild(visit);
    };
    file.forEachChild(visit);
  }

  const lengths = functions.map((f) => f.lines).sort((a, b) => a - b);
  const at = (q) => lengths[Math.min(lengths.length - 1, Math.ceil(q * lengths.length) - 1)];
  const over50 = lengths.filter((n) => n > 50).length;

  const index = project.program.getSourceFile(path.join(root, "src/index.ts"));
  const moduleSymbol = index === undefined ? undefined : project.checker.getSymbolAtLocation(index);
  const rootExports = moduleSymbol === undefined ? "?" : project.checker.getExportsOfModule(moduleSymbol).length;

  console.log(`files            ${files.length}`);
  console.log(`functions        ${lengths.length}`);
  console.log(`length median    ${at(0.5)}`);
  console.log(`length p90       ${at(0.9)}`);
  console.log(`length max       ${lengths.at(-1)}`);
  console.log(`over 50 lines    ${over50}`);
  console.log(`root exports     ${rootExports}`);
  console.log(`as unknown as    ${doubleCasts}`);
  if (longest > 0) {
    console.log("");
    for (const f of [...functions].sort((a, b) => b.lines - a.lines).slice(0, longest)) {
      console.log(`${String(f.lines).padStart(5)}  ${f.where}  ${f.name}`);
    }
  }
} finally {
  api.close();
}

function nameOf(node) {
  if (node.name !== undefined) return node.name.text ?? "(computed)";
  const parent = node.parent;
  if (parent?.kind === SyntaxKind.VariableDeclaration || parent?.kind === SyntaxKind.PropertyAssignment) {
    return parent.name.text ?? "(anonymous)";
  }
  if (node.kind === SyntaxKind.Constructor) return "constructor";
  return "(anonymous)";
}
