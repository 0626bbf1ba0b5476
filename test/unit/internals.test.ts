/**
 * No project file reaches into another package (docs/gateway.md): the gateway and the broker are used
 * through their public hooks only. Each project source file (lib/, broker/, cache/, gateway/,
 * middlewares/, mixins/, services/, store/, net/, server.ts, moleculer.config.ts) is parsed with the
 * TypeScript compiler, so comments and strings never count, and the test fails on any of:
 *
 * - an assignment, compound assignment or `delete` whose target is rooted at an imported binding (a
 *   package or a Node module: `ApiGateway.methods.x = …`, `Foo.prototype.bar = …`, `http.STATUS_CODES.x = …`),
 *   or such a binding handed to `Object.assign` / `defineProperty` / `defineProperties` / `setPrototypeOf`;
 * - any `.prototype.` assignment, whatever it is rooted at;
 * - reading the `methods` of an imported binding (`(ApiGateway as any).methods.errorHandler`: taking a
 *   mixin's methods to call or wrap them), and any `.methods.httpHandler`;
 * - the broker registry's node catalog (`registry.nodes`) or a Node socket's in-flight answer
 *   (`_httpMessage`);
 * - patching an HTTP message: assigning `end`, `write`, `writeHead`, `setHeader`, `emit` or `on` of any
 *   object, or binding its `end`/`write` to wrap it (`res.end.bind(res)`);
 * - replacing moleculer-web's request fields: assigning `$endpoint`, `$action`, `$route`, `$alias`,
 *   `$params`, `$ctx`, `$service` or `$next` of any object.
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

const ROOT = path.resolve(__dirname, "..", "..");
const DIRS = ["lib", "domain", "broker", "cache", "gateway", "middlewares", "mixins", "services", "store", "net"];
const TOP_FILES = ["server.ts", "moleculer.config.ts"];

const PATCHED_METHODS = new Set(["end", "write", "writeHead", "setHeader", "emit", "on"]);
const GATEWAY_REQUEST_FIELDS = new Set(["$endpoint", "$action", "$route", "$alias", "$params", "$ctx", "$service", "$next"]);
const OBJECT_MUTATORS = new Set(["assign", "defineProperty", "defineProperties", "setPrototypeOf"]);
const PRIVATE_FIELDS = new Set(["_httpMessage"]);

function projectFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (/\.(ts|js)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(rel);
    }
  };
  for (const dir of DIRS) if (fs.existsSync(path.join(ROOT, dir))) walk(dir);
  return [...out, ...TOP_FILES.filter(f => fs.existsSync(path.join(ROOT, f)))].sort();
}

/** The names bound by imports of packages and Node modules (not of the project's own files). */
function importedBindings(sf: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const external = (spec: ts.Expression) => ts.isStringLiteral(spec) && !spec.text.startsWith(".");
  for (const stmt of sf.statements) {
    if (ts.isImportDeclaration(stmt) && external(stmt.moduleSpecifier) && stmt.importClause) {
      const clause = stmt.importClause;
      if (clause.name) names.add(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) names.add(el.name.text);
    } else if (ts.isImportEqualsDeclaration(stmt) && ts.isExternalModuleReference(stmt.moduleReference) && external(stmt.moduleReference.expression)) {
      names.add(stmt.name.text);
    } else if (ts.isVariableStatement(stmt)) {
      for (const decl of stmt.declarationList.declarations) {
        const init = decl.initializer;
        if (init && ts.isCallExpression(init) && ts.isIdentifier(init.expression) && init.expression.text === "require" && init.arguments[0] && external(init.arguments[0])) {
          if (ts.isIdentifier(decl.name)) names.add(decl.name.text);
          else if (ts.isObjectBindingPattern(decl.name)) for (const el of decl.name.elements) if (ts.isIdentifier(el.name)) names.add(el.name.text);
        }
      }
    }
  }
  return names;
}

/** `(x as any)`, `(x)`, `x!` → x. */
function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isTypeAssertionExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
}

/** The identifier a property chain starts from (`a.b["c"].d` → a). */
function rootOf(e: ts.Expression): ts.Identifier | undefined {
  e = unwrap(e);
  while (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) e = unwrap(e.expression);
  return ts.isIdentifier(e) ? e : undefined;
}

/** The name a property access or a literal element access reads. */
function memberName(e: ts.Expression): string | undefined {
  e = unwrap(e);
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isElementAccessExpression(e) && ts.isStringLiteralLike(e.argumentExpression)) return e.argumentExpression.text;
  return undefined;
}

function chainNames(e: ts.Expression): string[] {
  const names: string[] = [];
  e = unwrap(e);
  while (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) {
    const name = memberName(e);
    if (name !== undefined) names.unshift(name);
    e = unwrap(e.expression);
  }
  return names;
}

const ASSIGNMENTS = new Set([ts.SyntaxKind.EqualsToken, ts.SyntaxKind.PlusEqualsToken, ts.SyntaxKind.MinusEqualsToken, ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken, ts.SyntaxKind.QuestionQuestionEqualsToken]);

/** Every reach into another package's internals in one source text, as `line: what`. */
export function internalsUsed(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith(".js") ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const imported = importedBindings(sf);
  const found: string[] = [];
  const report = (node: ts.Node, what: string) => found.push(`${fileName}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${what}`);
  const isImported = (e: ts.Expression) => {
    const root = rootOf(e);
    return !!root && imported.has(root.text);
  };

  function checkTarget(node: ts.Node, target: ts.Expression, verb: string): void {
    const t = unwrap(target);
    if (!ts.isPropertyAccessExpression(t) && !ts.isElementAccessExpression(t)) return;
    const name = memberName(t);
    if (isImported(t)) report(node, `${verb} a member of the imported '${rootOf(t)!.text}'`);
    else if (chainNames(t).includes("prototype")) report(node, `${verb} a prototype member`);
    else if (name !== undefined && PATCHED_METHODS.has(name)) report(node, `${verb} '${name}' (patching an object's method)`);
    else if (name !== undefined && GATEWAY_REQUEST_FIELDS.has(name)) report(node, `${verb} moleculer-web's request field '${name}'`);
  }

  function visit(node: ts.Node): void {
    if (ts.isBinaryExpression(node) && ASSIGNMENTS.has(node.operatorToken.kind)) checkTarget(node, node.left, "assigns");
    else if (ts.isDeleteExpression(node)) checkTarget(node, node.expression, "deletes");
    else if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(node.operator)) {
      checkTarget(node, node.operand, "assigns");
    }
    if (ts.isCallExpression(node)) {
      const callee = unwrap(node.expression);
      if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(unwrap(callee.expression)) && (unwrap(callee.expression) as ts.Identifier).text === "Object"
        && OBJECT_MUTATORS.has(callee.name.text) && node.arguments[0] && isImported(node.arguments[0])) {
        report(node, `Object.${callee.name.text} on the imported '${rootOf(node.arguments[0])!.text}'`);
      }
      // res.end.bind(res), res.write.bind(res): the original kept to wrap it
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === "bind" && ["end", "write", "writeHead"].includes(memberName(callee.expression) ?? "")) {
        report(node, `binds '${memberName(callee.expression)}' to wrap it`);
      }
    }
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      const name = memberName(node);
      const owner = unwrap(node.expression);
      if (name === "methods" && isImported(owner)) report(node, `reads the methods of the imported '${rootOf(owner)!.text}'`);
      if (name === "httpHandler" && memberName(owner) === "methods") report(node, "reads moleculer-web's methods.httpHandler");
      if (name === "nodes" && /registry$/i.test(memberName(owner) ?? (ts.isIdentifier(owner) ? owner.text : ""))) report(node, "reads the registry's node catalog (registry.nodes)");
      if (name !== undefined && PRIVATE_FIELDS.has(name)) report(node, `reads the private field '${name}'`);
    }
    ts.forEachChild(node, visit);
  }
  visit(sf);
  return found;
}

describe("no project file reaches into another package's internals", () => {
  const files = projectFiles();

  test("the project's source files are found", () => {
    expect(files).toEqual(expect.arrayContaining(["services/api.service.ts", "mixins/http-guards.mixin.ts", "middlewares/failover.middleware.ts", "server.ts", "moleculer.config.ts"]));
  });

  test("none assigns to, wraps or reads the private parts of another package", () => {
    const found = files.flatMap(f => internalsUsed(f, fs.readFileSync(path.join(ROOT, f), "utf8")));
    expect(found).toEqual([]);
  });
});

describe("the internals checker itself", () => {
  const check = (code: string) => internalsUsed("sample.ts", code).map(line => line.replace(/^sample\.ts:\d+: /, ""));

  test("finds each kind of reach", () => {
    expect(check([
      "import ApiGateway from \"moleculer-web\";",
      "import * as http from \"http\";",
      "import { Context } from \"moleculer\";",
      "const original = (ApiGateway as any).methods.httpHandler;",
      "ApiGateway.methods.errorHandler = () => 1;",
      "(Context as any).prototype.call = function () {};",
      "Object.assign(http.STATUS_CODES, { 599: \"x\" });",
      "function f(broker: any, res: any, req: any, obj: any) {",
      "  broker.registry.nodes.get(\"n\");",
      "  broker.registry.nodes.disconnected(\"n\", true);",
      "  const end = res.end.bind(res);",
      "  (res as any).end = (...args: unknown[]) => end(...args);",
      "  req.$endpoint = 1;",
      "  obj.__proto__ = obj.constructor.prototype.x = 1;",
      "  return req.socket._httpMessage;",
      "}"
    ].join("\n"))).toEqual([
      "reads moleculer-web's methods.httpHandler",
      "reads the methods of the imported 'ApiGateway'",
      "assigns a member of the imported 'ApiGateway'",
      "reads the methods of the imported 'ApiGateway'",
      "assigns a member of the imported 'Context'",
      "Object.assign on the imported 'http'",
      "reads the registry's node catalog (registry.nodes)",
      "reads the registry's node catalog (registry.nodes)",
      "binds 'end' to wrap it",
      "assigns 'end' (patching an object's method)",
      "assigns moleculer-web's request field '$endpoint'",
      "assigns a prototype member",
      "reads the private field '_httpMessage'"
    ]);
  });

  test("leaves alone the project's own objects, public calls, comments and strings", () => {
    expect(check([
      "import { createServer } from \"http\";",
      "import { helper } from \"./helper\";",
      "// (ApiGateway as any).methods.httpHandler, res.end = x, registry.nodes",
      "const s = \"req.$endpoint = 1; Foo.prototype.x = 1\";",
      "helper.cache = new Map();",
      "function f(res: any, req: any, broker: any) {",
      "  res.setHeader(\"X\", \"1\"); res.end(\"body\");",
      "  req.$http = { action: \"a\" };",
      "  broker.registry.getNodeList({ onlyAvailable: true });",
      "  return createServer();",
      "}"
    ].join("\n"))).toEqual([]);
  });
});
