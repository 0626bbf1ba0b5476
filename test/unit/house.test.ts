/**
 * House rules that keep the code explained inside its own walls (docs/README.md "Conventions"):
 * - layers: the source folders stand in an order (LAYERS, README.md "Layout"); no file imports from a
 *   folder above its own, and lib/ (the floor) imports neither the framework, the network nor a store
 *   driver (moleculer, moleculer-web, http, https, ioredis, pg…);
 * - folders: mixins/ holds only mixins, middlewares/ only broker middlewares, lib/ feature folders (at its
 *   top only LIB_TOP_FILES);
 * - paths: every repository path a comment, README.md or docs/*.md names (`lib/time/dates.ts`, `store/sql/`)
 *   exists, and a name a comment places in a file (lib/time/dates.ts `inUtc`) is in that file;
 * - documents: every `*.md` a comment (or a test title) names is a file of the repository, and an
 *   `#anchor` after it is a heading or an explicit anchor of that file;
 * - decisions: every decision code (a C or a D and its number) a comment (or a test title) names is an entry of
 *   docs/decisions.md, and carries a few words of its meaning right after it: `C16 (read your writes)`,
 *   `(C16: read your writes)`, or a range `C51 to C55: the recurrence decisions`;
 * - types: no function in services/ or mixins/ declares `this: any` (each service and mixin types its
 *   `this` through a Self interface, as services/taxonomy.service.ts does); the sources hold at most
 *   MAX_DOUBLE_CASTS `as unknown as` casts, each with a comment on the line above saying why; no file
 *   outside store/ casts a value to a record's document type (`as EventDoc`): the store's reads are typed;
 * - one way to build a service: the call context type (`Ctx`) is declared only in broker/context.ts, the
 *   administrator check written only in lib/access/capabilities.ts, the list totals' headers only in
 *   lib/http/list-totals.ts.
 * No broker: the source files are read and parsed with the TypeScript compiler, so only real comments
 * and the titles of describe/test/it are read (never code or other strings).
 *
 * The exception lists below are temporary, named, and checked for staleness: a file that no longer
 * needs its exception fails the test until it is taken off the list.
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

const ROOT = path.resolve(__dirname, "..", "..");

/** Files still importing a folder above their own, each with what it takes from there. Empty this list. */
const LAYER_EXCEPTIONS: Record<string, string> = {};

/** What pure logic does not import. */
const FRAMEWORK_MODULES = /^(moleculer|moleculer-web|http|https|http2|node:http|node:https|node:http2|ioredis|pg|better-sqlite3|mongodb)$/;

/** Files whose comments still cite documents outside the repository; being rewritten on another branch. */
const REFERENCE_EXCEPTIONS: Record<string, string> = {};

// ---------------------------------------------------------------------------------------------------
// Files

const SOURCE_DIRS = ["lib", "domain", "broker", "cache", "gateway", "middlewares", "mixins", "services", "store", "net", "test", "bench", "scripts"];
const SOURCE_EXT = /\.(ts|js|mjs|cjs)$/;
const SKIP_DIRS = new Set(["node_modules", "dist", "results", "coverage", "data"]);

function walk(dir: string, out: string[]): string[] {
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(rel, out);
    } else if (SOURCE_EXT.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      out.push(rel);
    }
  }
  return out;
}

function sourceFiles(): string[] {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) if (fs.existsSync(path.join(ROOT, dir))) walk(dir, files);
  for (const entry of fs.readdirSync(ROOT)) if (entry.endsWith(".ts") && !entry.endsWith(".d.ts")) files.push(entry);
  return files.sort();
}

const FILES = sourceFiles();
const parsed = new Map<string, ts.SourceFile>();

function sourceOf(file: string): ts.SourceFile {
  let sf = parsed.get(file);
  if (!sf) {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    const kind = file.endsWith(".ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
    sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
    parsed.set(file, sf);
  }
  return sf;
}

/** A self-test's own source text, read by the checks as the file `file` (its lines, then one export). */
function virtualSource(file: string, lines: string[]): void {
  const text = `${lines.join("\n")}\nexport const v = 1;\n`;
  parsed.set(file, ts.createSourceFile(path.basename(file), text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
}

// ---------------------------------------------------------------------------------------------------
// Imports

/** Every module specifier of a file: import/export … from, import x = require(), require(), import(). */
export function moduleSpecifiers(sf: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text);
    } else if (ts.isExternalModuleReference(node) && ts.isStringLiteral(node.expression)) {
      out.push(node.expression.text);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0]) &&
      ((ts.isIdentifier(node.expression) && node.expression.text === "require") || node.expression.kind === ts.SyntaxKind.ImportKeyword)) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The source folders from the top down (domain/: plain classes built without a broker): a file imports from its own and those after it. */
const LAYERS = ["services", "middlewares", "mixins", "gateway", "cache", "broker", "domain", "store", "net", "lib"];

const layerOf = (file: string): number => LAYERS.indexOf(file.split("/")[0]);

/** The repository paths in folders above its own that a file of a layered folder imports. */
function upwardImports(file: string): string[] {
  const own = layerOf(file);
  if (own < 0) return [];
  return moduleSpecifiers(sourceOf(file))
    .filter(spec => spec.startsWith("."))
    .map(spec => path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)).split(path.sep).join("/"))
    .filter(target => { const layer = layerOf(target); return layer >= 0 && layer < own; });
}

// ---------------------------------------------------------------------------------------------------
// Comments and test titles

interface Note { pos: number; line: number; text: string }

const TEST_CALLS = new Set(["describe", "test", "it"]);

/** The root identifier of a callee such as `describe.each([...])` or `test.skip`. */
function calleeRoot(expr: ts.Expression): string | undefined {
  let e: ts.Expression = expr;
  for (;;) {
    if (ts.isPropertyAccessExpression(e)) e = e.expression;
    else if (ts.isCallExpression(e)) e = e.expression;
    else break;
  }
  return ts.isIdentifier(e) ? e.text : undefined;
}

/** Every comment of a file (each once) and, in test files, the title of every describe/test/it. */
export function notesOf(sf: ts.SourceFile): Note[] {
  const text = sf.getFullText();
  const seen = new Set<number>();
  const notes: Note[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    if (ts.isCallExpression(node) && TEST_CALLS.has(calleeRoot(node.expression) ?? "")) {
      const title = node.arguments[0];
      if (title && (ts.isStringLiteralLike(title) || ts.isTemplateExpression(title))) {
        notes.push({ pos: title.getStart(sf), line: lineOf(title.getStart(sf)), text: title.getText(sf) });
      }
    }
    const children = node.getChildren(sf);
    if (children.length === 0) {
      // A leaf token: the comments in front of it and those after it on its line (TypeScript gives a comment
      // that shares a line with the token before it to that token, as trailing).
      const ranges = [...ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [], ...ts.getTrailingCommentRanges(text, node.end) ?? []];
      for (const range of ranges) {
        if (seen.has(range.pos)) continue;
        seen.add(range.pos);
        notes.push({ pos: range.pos, line: lineOf(range.pos), text: text.slice(range.pos, range.end) });
      }
    }
    for (const child of children) visit(child);
  };
  visit(sf);
  return notes.sort((a, b) => a.pos - b.pos);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/<[^>]*>/g, "").replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** The anchors a Markdown document defines: its headings (GitHub style, duplicates numbered) and `id="…"`. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  let fence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fence = !fence;
    if (fence) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = headingAnchor(heading[1]);
      const n = counts.get(base) ?? 0;
      counts.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/\bid="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

const DECISIONS = "docs/decisions.md";

/** The decision codes docs/decisions.md defines: a `### C16 …` heading with its `<a id="c16">` anchor. */
function definedDecisions(): Set<string> {
  const markdown = fs.readFileSync(path.join(ROOT, DECISIONS), "utf8");
  const anchors = anchorsOf(markdown);
  const codes = new Set<string>();
  for (const m of markdown.matchAll(/^###\s+([CD]\d+)\b/gm)) {
    if (anchors.has(m[1].toLowerCase())) codes.add(m[1]);
  }
  return codes;
}

/**
 * A document reference (`docs/lists.md`, `docs/lists.md#paging`) or a bare anchor (`#paging`, after a space,
 * `(`, `,`, `;` or `/`), which names a heading of the document named last before it in the same file.
 */
const REF = /(?<doc>(?:\.{0,2}\/)?(?:[\w.-]+\/)*[\w.-]+\.md)(?:#(?<anchor>[\w-]+))?|(?<=^|[\s(,;/])#(?<bare>[a-z][\w-]*)/g;
const DECISION_REF = /\b[CD]\d{1,2}\b/g;
const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
const CODE_SPAN = /`[^`\n]*`/g;

const anchorCache = new Map<string, Set<string>>();

function anchorsIn(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    anchors = anchorsOf(fs.readFileSync(file, "utf8"));
    anchorCache.set(file, anchors);
  }
  return anchors;
}

/** The repository file a document reference written in `file` names: from the root, or from the file's folder. */
function resolveDocument(file: string, target: string): string | undefined {
  const candidates = [path.resolve(ROOT, target), path.resolve(ROOT, path.dirname(file), target)];
  return candidates.find(c => c.startsWith(ROOT + path.sep) && fs.existsSync(c) && fs.statSync(c).isFile());
}

/** Every broken reference of a file, as `file:line: reason`. */
function brokenReferences(file: string, decisions: Set<string>): string[] {
  const problems: string[] = [];
  let lastDocument: string | undefined;
  const checkAnchor = (line: number, anchor: string, written: string) => {
    if (!lastDocument) problems.push(`${file}:${line}: ${written}: an anchor without a document before it`);
    else if (!anchorsIn(lastDocument).has(anchor)) problems.push(`${file}:${line}: ${written}: ${path.relative(ROOT, lastDocument)} has no anchor #${anchor}`);
  };
  for (const note of notesOf(sourceOf(file))) {
    const text = note.text.replace(URL, " ").replace(CODE_SPAN, " ");
    for (const m of text.matchAll(REF)) {
      const g = m.groups ?? {};
      if (g.doc) {
        lastDocument = resolveDocument(file, g.doc);
        if (!lastDocument) problems.push(`${file}:${note.line}: ${g.doc}: no such document in the repository`);
        else if (g.anchor) checkAnchor(note.line, g.anchor, m[0]);
      } else if (g.bare) {
        checkAnchor(note.line, g.bare, m[0]);
      }
    }
    for (const m of text.matchAll(DECISION_REF)) {
      if (!decisions.has(m[0])) problems.push(`${file}:${note.line}: ${m[0]} is not an entry of ${DECISIONS}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------

describe("layers", () => {
  const layered = FILES.filter(f => layerOf(f) >= 0);

  test("no file imports from a folder above its own (besides the named exceptions)", () => {
    const offenders = layered
      .filter(f => !(f in LAYER_EXCEPTIONS))
      .flatMap(f => upwardImports(f).map(target => `${f} imports ${target}`));
    expect(offenders).toEqual([]);
  });

  test("the check sees an import from above, and none from below", () => {
    const code = "import { a } from \"../mixins/a\";\nimport { b } from \"./b\";\nexport { c } from \"../lib/c\";\n";
    parsed.set("cache/virtual.ts", ts.createSourceFile("virtual.ts", code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
    parsed.set("services/virtual.ts", parsed.get("cache/virtual.ts")!);
    expect(upwardImports("cache/virtual.ts")).toEqual(["mixins/a"]);
    expect(upwardImports("services/virtual.ts")).toEqual([]);
  });

  test("no domain/ file imports the framework, the network or a store driver (plain classes, built without a broker)", () => {
    const domainFiles = FILES.filter(f => f.startsWith("domain/"));
    expect(domainFiles.length).toBeGreaterThan(0);
    const offenders = domainFiles.flatMap(f => moduleSpecifiers(sourceOf(f)).filter(spec => FRAMEWORK_MODULES.test(spec)).map(spec => `${f} imports ${spec}`));
    expect(offenders).toEqual([]);
  });

  test("every layer exception still needs its place on the list", () => {
    const stale = Object.keys(LAYER_EXCEPTIONS).filter(f => !FILES.includes(f) || upwardImports(f).length === 0);
    expect(stale).toEqual([]);
  });
});

/** What pure logic does not reach for: files, the process's context across calls, other processes. */
const IMPURE_MODULES = /^(?:node:)?(?:fs|fs\/promises|async_hooks|child_process|worker_threads|cluster)$/;

/** Array, Map and Set methods that change the value they are called on. */
const MUTATORS = new Set(["set", "add", "delete", "clear", "push", "pop", "shift", "unshift", "splice", "sort", "reverse", "fill", "copyWithin"]);

/**
 * lib/ files that still hold what the floor must not, each with why it is still there. Empty this list:
 * what reads the environment, files or the process, or keeps state between calls, belongs to the layer
 * that owns that state (broker/, store/, gateway/, domain/), which hands lib/ values.
 */
const PURITY_EXCEPTIONS: Record<string, string> = {
  "lib/settings.ts": "the one reader of the environment, and the settings of the current site: every layer reads them, lib/ too (lib/sites/site-callers.ts, the params schemas); moving the reading up means handing settings to every lib/ function that reads one",
  "lib/sites/scope.ts": "the site the current work belongs to, carried across calls by an AsyncLocalStorage: lib/settings.ts and lib/sites/site-callers.ts read it, so it moves with them",
  "lib/access/api-keys.ts": "the generated administrator key's file and the keys read once: lib/sites/site-callers.ts asks them for the caller of a key, and the events' and linked records' params schemas (lib/events/event-params.ts, lib/linked/params.ts) for the known user ids, so it moves with them",
  "lib/time/dates.ts": "locutus's strtotime reads dates in the process's zone, so each call runs with the zone set to UTC and put back (`inUtc`): the dates then never depend on the zone the process runs in (test/unit/other-zone.test.ts)"
};

/**
 * What keeps a file of lib/ from being pure logic, each as `line: reason`: an import of the file system or
 * the process's context, any use of `process` (its environment, id or clock), and module state: a top-level
 * `let` or `var`, or a top-level constant the file changes (a call of a mutating method on it, an
 * assignment into it).
 */
export function impurities(sf: ts.SourceFile): string[] {
  const out: string[] = [];
  const lineOf = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  for (const spec of moduleSpecifiers(sf)) if (IMPURE_MODULES.test(spec)) out.push(`imports ${spec}`);
  const topConsts = new Set<string>();
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const decl of list.declarations) {
      if (!ts.isIdentifier(decl.name)) continue;
      if (!isConst) out.push(`${lineOf(decl)}: module state \`${decl.name.text}\` (a top-level let or var)`);
      else topConsts.add(decl.name.text);
    }
  }
  /** The top-level constant an expression reaches into (`cache`, `cache.x`, `cache[k]`), if any. */
  const rootConst = (e: ts.Expression): string | undefined => {
    let x: ts.Expression = e;
    while (ts.isPropertyAccessExpression(x) || ts.isElementAccessExpression(x) || ts.isParenthesizedExpression(x)) x = x.expression;
    return ts.isIdentifier(x) && topConsts.has(x.text) ? x.text : undefined;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === "process" && !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)) {
      out.push(`${lineOf(node)}: reads the process (\`${node.parent.getText(sf).slice(0, 40)}\`)`);
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && MUTATORS.has(node.expression.name.text)) {
      const target = node.expression.expression;
      const name = ts.isIdentifier(target) && topConsts.has(target.text) ? target.text : undefined;
      if (name) out.push(`${lineOf(node)}: module state \`${name}\` (changed by .${node.expression.name.text}())`);
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment &&
      (ts.isPropertyAccessExpression(node.left) || ts.isElementAccessExpression(node.left))) {
      const name = rootConst(node.left);
      if (name) out.push(`${lineOf(node)}: module state \`${name}\` (assigned into)`);
    } else if (ts.isDeleteExpression(node)) {
      const name = rootConst(node.expression);
      if (name) out.push(`${lineOf(node)}: module state \`${name}\` (a key deleted)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe("lib/ is pure", () => {
  const framework = (f: string): string[] => moduleSpecifiers(sourceOf(f)).filter(spec => FRAMEWORK_MODULES.test(spec));
  const libFiles = FILES.filter(f => f.startsWith("lib/"));

  test("no lib/ file imports moleculer, http or a store driver", () => {
    const offenders = libFiles.flatMap(f => framework(f).map(m => `${f} imports ${m}`));
    expect(offenders).toEqual([]);
  });

  test("no lib/ file reads files, the environment or the process, or keeps module state (besides the named exceptions)", () => {
    expect(libFiles.filter(f => !(f in PURITY_EXCEPTIONS)).flatMap(f => impurities(sourceOf(f)).map(p => `${f}: ${p}`))).toEqual([]);
  });

  test("every purity exception still needs its place on the list", () => {
    expect(Object.keys(PURITY_EXCEPTIONS).filter(f => !libFiles.includes(f) || impurities(sourceOf(f)).length === 0)).toEqual([]);
  });

  test("the check sees files, the process, async context and module state, and passes constants and locals", () => {
    const sf = ts.createSourceFile("x.ts", [
      "import * as fs from \"fs\";",
      "import { AsyncLocalStorage } from \"node:async_hooks\";",
      "let cached: string | undefined;",
      "const seen = new Map<string, number>();",
      "const FIXED = new Set([\"a\"]);",
      "const counters = { n: 0 };",
      "export function f(k: string): number {",
      "  const local = new Map<string, number>(); local.set(k, 1);",
      "  seen.set(k, 1); counters.n += 1;",
      "  return FIXED.has(k) && process.env.TZ ? 1 : local.size;",
      "}"
    ].join("\n"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    expect(impurities(sf)).toEqual([
      "imports fs",
      "imports node:async_hooks",
      "3: module state `cached` (a top-level let or var)",
      "9: module state `seen` (changed by .set())",
      "9: module state `counters` (assigned into)",
      "10: reads the process (`process.env`)"
    ]);
  });
});

/** The only files at lib/'s top: what every feature folder of lib/ uses. Anything else goes in the folder of its concern. */
const LIB_TOP_FILES = ["lib/errors.ts", "lib/memo.ts", "lib/settings.ts"];

describe("folders hold what their names say", () => {
  const namesIn = (dir: string) => FILES.filter(f => f.startsWith(`${dir}/`)).map(f => f.slice(dir.length + 1));

  test("lib/ is grouped in feature folders: at its top only the files every folder uses", () => {
    expect(namesIn("lib").filter(name => !name.includes("/")).map(name => `lib/${name}`)).toEqual(LIB_TOP_FILES);
  });

  test("mixins/ holds only mixins (`*.mixin.ts`), middlewares/ only broker middlewares (`*.middleware.ts`)", () => {
    expect(namesIn("mixins").filter(name => !/^[\w-]+\.mixin\.ts$/.test(name))).toEqual([]);
    expect(namesIn("middlewares").filter(name => !/^[\w-]+\.middleware\.ts$/.test(name))).toEqual([]);
    expect(namesIn("mixins").length).toBeGreaterThan(0);
    expect(namesIn("middlewares").length).toBeGreaterThan(0);
  });
});

/** A repository path a comment names: a top folder of the project, then folders and a file with its extension, or a folder ending in `/`. */
const PATH_REF = /(?<![\w./-])(?:lib|domain|broker|cache|gateway|middlewares|mixins|services|store|net|test|bench|scripts|docs|locales|types)\/(?:[\w.-]+\/)*(?:[\w-]+(?:\.[\w-]+)*\.(?:ts|js|mjs|cjs|json|md|sql|sh)\b|(?=[\s`'")]))/g;

/** What `problem` says of each match of `pattern` in a file's comments (URLs left out), as `file:line: …`. */
function commentProblems(file: string, pattern: RegExp, problem: (m: RegExpMatchArray) => string | undefined): string[] {
  return notesOf(sourceOf(file)).flatMap(note => [...note.text.replace(URL, " ").matchAll(pattern)]
    .map(problem).filter((p): p is string => p !== undefined).map(p => `${file}:${note.line}: ${p}`));
}

/** Every path a file's comments name that is not in the repository, as `file:line: path`. */
function missingPaths(file: string): string[] {
  return commentProblems(file, PATH_REF, m => (fs.existsSync(path.join(ROOT, m[0].replace(/\/$/, ""))) ? undefined : m[0]));
}

describe("paths in comments exist", () => {
  test("every repository path a comment or test title names is a file or folder of the repository", () => {
    expect(FILES.flatMap(missingPaths)).toEqual([]);
  });

  test("the check sees a path that does not exist", () => {
    virtualSource("virtual/x.ts", ["/** see mixins/store/id-registry.ts and lib/time/dates.ts */"]);
    expect(missingPaths("virtual/x.ts")).toEqual(["virtual/x.ts:1: mixins/store/id-registry.ts"]);
  });
});

/** A path a comment names followed by one of its names in backticks: "store/collection.ts `FEED_CARRY`". */
const NAMED_IN_FILE = /(?<![\w./-])((?:lib|domain|broker|cache|gateway|middlewares|mixins|services|store|net|test|bench|scripts)\/(?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.ts)\s+`([A-Za-z_$][\w$]*)(?:\.[\w$]+)*(?:\(\))?`/g;

/** Every name a file's comments place in another file (lib/time/dates.ts `inUtc`) that the other file does not hold, as `file:line: path name`. */
function missingNames(file: string): string[] {
  const holds = (target: string, name: string) =>
    !fs.existsSync(target) || new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`).test(fs.readFileSync(target, "utf8"));
  return commentProblems(file, NAMED_IN_FILE, m => (holds(path.join(ROOT, m[1]), m[2]) ? undefined : `${m[1]} ${m[2]}`));
}

describe("names in comments exist", () => {
  test("every name a comment places in a file (lib/time/dates.ts `inUtc`) is in that file", () => {
    expect(FILES.flatMap(missingNames)).toEqual([]);
  });

  test("the check sees a name the file does not hold", () => {
    virtualSource("virtual/y.ts", ["/** see lib/time/dates.ts `inUtc` and lib/time/dates.ts `noSuchFunction()` */"]);
    expect(missingNames("virtual/y.ts")).toEqual(["virtual/y.ts:1: lib/time/dates.ts noSuchFunction"]);
  });
});

describe("paths in the documentation exist", () => {
  test("every repository path README.md and docs/*.md name is a file or folder of the repository", () => {
    const docs = ["README.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter(f => f.endsWith(".md")).map(f => `docs/${f}`)];
    const problems: string[] = [];
    for (const doc of docs) {
      const text = fs.readFileSync(path.join(ROOT, doc), "utf8").replace(URL, " ");
      for (const m of text.matchAll(PATH_REF)) {
        const target = m[0].replace(/\/$/, "");
        if (!fs.existsSync(path.join(ROOT, target)) && !fs.existsSync(path.join(ROOT, path.dirname(doc), target))) problems.push(`${doc}: ${m[0]}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("references in comments resolve inside the repository", () => {
  const decisions = definedDecisions();

  test("docs/decisions.md defines the decision codes (each `### C…`/`### D…` entry with its anchor)", () => {
    expect(decisions.size).toBeGreaterThan(0);
    const markdown = fs.readFileSync(path.join(ROOT, DECISIONS), "utf8");
    const headings = [...markdown.matchAll(/^###\s+([CD]\d+)\b/gm)].map(m => m[1]);
    expect(headings.filter(code => !decisions.has(code))).toEqual([]);
  });

  test("every document and decision code a comment names exists (besides the named exceptions)", () => {
    const problems = FILES.filter(f => !(f in REFERENCE_EXCEPTIONS)).flatMap(f => brokenReferences(f, decisions));
    expect(problems).toEqual([]);
  });

  test("every reference exception still needs its place on the list", () => {
    const stale = Object.keys(REFERENCE_EXCEPTIONS).filter(f => !FILES.includes(f) || brokenReferences(f, decisions).length === 0);
    expect(stale).toEqual([]);
  });
});

describe("the documentation's own links", () => {
  test("every relative link in docs/*.md names a file of the repository and, after #, one of its anchors", () => {
    const problems: string[] = [];
    const docs = fs.readdirSync(path.join(ROOT, "docs")).filter(f => f.endsWith(".md")).map(f => `docs/${f}`);
    for (const doc of docs) {
      const markdown = fs.readFileSync(path.join(ROOT, doc), "utf8");
      for (const m of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
        const [target, anchor] = link.split("#");
        const file = target === "" ? path.join(ROOT, doc) : resolveDocument(doc, target) ?? path.resolve(ROOT, path.dirname(doc), target);
        if (!fs.existsSync(file)) problems.push(`${doc}: ${link}: no such file`);
        else if (anchor !== undefined && fs.statSync(file).isFile() && !anchorsIn(file).has(anchor)) problems.push(`${doc}: ${link}: no such anchor`);
      }
    }
    expect(problems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Words in comments

/**
 * An issue, pull request or session number in a comment: the comment gives the reason in words (a reader
 * of the code has no tracker beside it), and where the history matters, the commit says it.
 */
const TRACKER_NUMBER = /\b(?:issues?|pull\s+requests?|PRs?|sessions?)[\s-]*#?\d+\b|(?<![\w/&])#\d+\b/gi;

/**
 * A measured timing in a comment: microseconds, a figure before and after a change, a rate (`/s`), a
 * share of the CPU. Timings age with every change of the code and the machine; docs/benchmarks.md keeps them, with
 * the command that measured them, and a comment names that document instead.
 */
const TIMING = new RegExp([
  String.raw`\d[\d\s,.]*(?:µs|μs)(?![\w])`,
  String.raw`\d[\d\s,.]*(?:µs|μs|ms|s|%)?\s*(?:→|->)\s*\d[\d\s,.]*(?:µs|μs|ms|s|%|/s|requests|per second)(?![\w])`,
  String.raw`\d[\d\s,.]*(?:[a-z]+)?/s(?![\w])`,
  String.raw`\d+(?:\.\d+)?\s*(?:%\s*of\s+the|ms\s+of)\s+CPU`
].join("|"), "gi");

/** Every tracker number and timing a file's comments and test titles hold, as `file:line: text`. */
function trackerWords(file: string): string[] {
  return notesOf(sourceOf(file)).flatMap(note => {
    const text = note.text.replace(URL, " ");
    return [...text.matchAll(TRACKER_NUMBER), ...text.matchAll(TIMING)].map(m => `${file}:${note.line}: ${m[0].trim()}`);
  });
}

/**
 * What follows a glossed decision code: `: ` or ` (` and a word (the few words of its meaning a newcomer
 * reads without opening docs/decisions.md), or ` to ` and the code that ends a range glossed after it.
 */
const GLOSS_AFTER = /^(?::\s+[\w`"'/]| \([\w`"'/]| to [CD]\d{1,2}\b)/;

/** How far before a code the sentence that states it may begin. */
const STATED_WITHIN = 120;

/** The words of each decision's title that carry its meaning (four letters or more): `C19` → authorization, header. */
function decisionTitleWords(): Map<string, string[]> {
  const markdown = fs.readFileSync(path.join(ROOT, DECISIONS), "utf8");
  return new Map([...markdown.matchAll(/^###\s+([CD]\d+)\s+(.*)$/gm)].map(m => [m[1], m[2].toLowerCase().match(/[a-z]{4,}/g) ?? []]));
}

const TITLE_WORDS = decisionTitleWords();

/**
 * Every decision code a file's comments and test titles name without words of its meaning, as
 * `file:line: code`. A code has them when a gloss follows it (GLOSS_AFTER) or when the sentence just
 * before it states the decision: every word of four letters or more of its title stands there
 * ("ignores the Authorization header (C19)").
 */
function bareDecisionCodes(file: string, titleWords = TITLE_WORDS): string[] {
  return notesOf(sourceOf(file)).flatMap(note => {
    const text = note.text.replace(URL, " ").replace(CODE_SPAN, " ");
    const stated = (code: string, at: number) => {
      const words = titleWords.get(code) ?? [];
      const before = text.slice(Math.max(0, at - STATED_WITHIN), at).toLowerCase();
      return words.length > 0 && words.every(w => before.includes(w));
    };
    return [...text.matchAll(DECISION_REF)]
      .filter(m => !GLOSS_AFTER.test(text.slice(m.index + m[0].length)) && !stated(m[0], m.index))
      .map(m => `${file}:${note.line}: ${m[0]}`);
  });
}

describe("comments give reasons in words", () => {
  test("every decision code a comment or test title names carries a few words of its meaning", () => {
    expect(FILES.flatMap(f => bareDecisionCodes(f))).toEqual([]);
  });

  test("the gloss check sees a code alone, in a list or before other words, and passes glossed codes, ranges and codes after a sentence stating them", () => {
    virtualSource("virtual/g.ts", [
      "// answered before the write returns (C16)",
      "/** lists (C16, D4) and D8 coordinates */",
      "// C16 (read your writes); (D4: the path selects the record); `C13` in a code span",
      "// C51 to C55: the recurrence decisions",
      "// the page ignores the Authorization header (C19); the header (C19) alone says too little"
    ]);
    const titles = new Map([["C16", ["read", "your", "writes"]], ["C19", ["authorization", "header"]]]);
    expect(bareDecisionCodes("virtual/g.ts", titles)).toEqual(["virtual/g.ts:1: C16", "virtual/g.ts:2: C16", "virtual/g.ts:2: D4", "virtual/g.ts:2: D8"]);
    expect(bareDecisionCodes("virtual/g.ts", new Map())).toContain("virtual/g.ts:5: C19");
  });

  test("no comment or test title holds an issue, pull request or session number, or a measured timing", () => {
    expect(FILES.flatMap(trackerWords)).toEqual([]);
  });

  test("the check sees each kind, and passes durations, decision codes and anchors", () => {
    virtualSource("virtual/z.ts", [
      "// counts kept by triggers (issue 41)",
      "/** as session 47 decided; see #12 */",
      "// an insert 504 → 438 µs of CPU",
      "// 875 creates/s on SQLite, ~10 % of the CPU",
      "// a lease of 50 ms; a day's deadline; C16 and docs/lists.md#paging; 2 → 3 members"
    ]);
    expect(trackerWords("virtual/z.ts")).toEqual([
      "virtual/z.ts:1: issue 41",
      "virtual/z.ts:2: session 47",
      "virtual/z.ts:2: #12",
      "virtual/z.ts:3: 504 → 438 µs",
      "virtual/z.ts:4: 875 creates/s",
      "virtual/z.ts:4: 10 % of the CPU"
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Types

/** The lines of every parameter `this: any` of a file. */
export function untypedThis(sf: ts.SourceFile): number[] {
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isParameter(node) && ts.isIdentifier(node.name) && node.name.text === "this" && node.type?.kind === ts.SyntaxKind.AnyKeyword) {
      lines.push(sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return lines;
}

describe("typed services and mixins", () => {
  test("no function in services/ or mixins/ declares `this: any`", () => {
    const found = FILES.filter(f => /^(services|mixins)\//.test(f) && f.endsWith(".ts"))
      .flatMap(f => untypedThis(sourceOf(f)).map(line => `${f}:${line}`));
    expect(found).toEqual([]);
  });
});

/** The folders of the service's own code (not its tests, benches or scripts), and the top-level files. */
const CODE_DIRS = ["services", "mixins", "lib", "store", "net", "domain", "broker", "middlewares", "gateway", "cache"];
const CODE_FILES = FILES.filter(f => f.endsWith(".ts") && (!f.includes("/") || CODE_DIRS.includes(f.split("/")[0])));

/** How many `as unknown as` casts the sources may keep, each where a framework type cannot say it. */
const MAX_DOUBLE_CASTS = 5;

/** Every `x as unknown as T` of a file: its line and whether the line above it is a comment. */
export function doubleCasts(sf: ts.SourceFile): Array<{ line: number; commented: boolean }> {
  const lines = sf.text.split("\n");
  const found: Array<{ line: number; commented: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) && ts.isAsExpression(node.expression) && node.expression.type.kind === ts.SyntaxKind.UnknownKeyword) {
      const line = sf.getLineAndCharacterOfPosition(node.expression.type.getStart(sf)).line + 1;
      const above = (lines[line - 2] ?? "").trim();
      found.push({ line, commented: above.startsWith("//") || above.startsWith("*") || above.startsWith("/*") || above.endsWith("*/") });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe("casts", () => {
  const casts = CODE_FILES.flatMap(f => doubleCasts(sourceOf(f)).map(c => ({ at: `${f}:${c.line}`, commented: c.commented })));

  test(`the sources hold at most ${MAX_DOUBLE_CASTS} \`as unknown as\` casts`, () => {
    expect(casts.length > MAX_DOUBLE_CASTS ? casts.map(c => c.at) : []).toEqual([]);
  });

  test("each `as unknown as` has a comment on the line above it", () => {
    expect(casts.filter(c => !c.commented).map(c => c.at)).toEqual([]);
  });

  test("the check finds every `as unknown as`, commented or not, and no other cast", () => {
    const sf = ts.createSourceFile("x.ts", [
      "const a = b as unknown as C;",
      "// why",
      "const d = (e as unknown as F).g;",
      "const h = i as J; const k = l as unknown;",
      "/** why */",
      "export default m as unknown as N;"
    ].join("\n"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    expect(doubleCasts(sf)).toEqual([{ line: 1, commented: false }, { line: 3, commented: true }, { line: 6, commented: true }]);
  });
});

/**
 * Every cast of a value to a record kind's document type (`as EventDoc`, `as TermDoc[] | null`…) in a file:
 * its line. Outside store/ there are none: a collection is read as its kind's documents
 * (store/collection.ts `recordsOf`), so its reads need no cast.
 */
export function docCasts(sf: ts.SourceFile): number[] {
  const found: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) && /^[A-Z][A-Za-z]*Doc\b/.test(node.type.getText(sf))) found.push(sf.getLineAndCharacterOfPosition(node.type.getStart(sf)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe("store reads", () => {
  test("no file outside store/ casts a value to a record's document type", () => {
    const casts = FILES.filter(f => f.endsWith(".ts") && !f.startsWith("store/")).flatMap(f => docCasts(sourceOf(f)).map(line => `${f}:${line}`));
    expect(casts).toEqual([]);
  });

  test("the check finds each cast to a document type, and no other cast", () => {
    const sf = ts.createSourceFile("x.ts", [
      "const a = (await col.findOne(q)) as EventDoc | null;",
      "const b = docs as TermDoc[]; const c = x as Doc; const d = y as Record<string, unknown>;",
      "const e = z as unknown as LinkedDoc;"
    ].join("\n"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    expect(docCasts(sf)).toEqual([1, 2, 3]);
  });
});

// ---------------------------------------------------------------------------------------------------
// One way to build a service

/** The one file that declares the call context type (`Ctx`) every service and mixin uses. */
const CALL_CONTEXT_FILE = "broker/context.ts";
/** The one file that says who is an administrator (`isAdministrator`). */
const CAPABILITIES_FILE = "lib/access/capabilities.ts";
/** The one file that writes the list totals' headers (`X-WP-Total`, `X-WP-TotalPages`). */
const LIST_TOTALS_FILE = "lib/http/list-totals.ts";

/** The lines of a file that declare a type or interface named `Ctx` (a call context of its own). */
export function ownCallContexts(sf: ts.SourceFile): number[] {
  const found: number[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name.text === "Ctx") found.push(sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The lines of a file that compare a value with the role `"administrator"` (an administrator check of its own). */
export function ownAdministratorChecks(sf: ts.SourceFile): number[] {
  const found: number[] = [];
  const equality = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]);
  const isAdmin = (e: ts.Expression) => ts.isStringLiteralLike(e) && e.text === "administrator";
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && equality.has(node.operatorToken.kind) && (isAdmin(node.left) || isAdmin(node.right))) {
      found.push(sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The lines of a file whose code names a list total header (`"X-WP-Total"`, `"X-WP-TotalPages"`) as a string or a key of its own. */
export function ownListTotals(sf: ts.SourceFile): number[] {
  const found: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) && /^X-WP-Total(?:Pages)?$/.test(node.text)) found.push(sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe("one way to build a service", () => {
  const offenders = (check: (sf: ts.SourceFile) => number[], allowed: string) =>
    CODE_FILES.filter(f => f !== allowed).flatMap(f => check(sourceOf(f)).map(line => `${f}:${line}`));

  test(`the call context type is declared once (${CALL_CONTEXT_FILE} \`Ctx\`), never again in a service or mixin`, () => {
    expect(offenders(ownCallContexts, CALL_CONTEXT_FILE)).toEqual([]);
  });

  test(`the administrator check is written once (${CAPABILITIES_FILE} \`isAdministrator\`)`, () => {
    expect(offenders(ownAdministratorChecks, CAPABILITIES_FILE)).toEqual([]);
  });

  test(`the list totals' headers are written once (${LIST_TOTALS_FILE} \`totalHeaders\`)`, () => {
    expect(offenders(ownListTotals, LIST_TOTALS_FILE)).toEqual([]);
  });

  test("the checks see a context type, an administrator check and a totals header of a file's own, and nothing else", () => {
    const sf = ts.createSourceFile("x.ts", [
      "type Ctx<P> = Context<P, CallMeta>;",
      "interface Ctx { params: unknown }",
      "type CallOrNone = Ctx<unknown> | undefined; import type { Ctx as C } from \"../broker/context\";",
      "if (who.role !== \"administrator\") throw e;",
      "const ok = \"administrator\" === role; const roles = [\"administrator\", \"editor\"]; const r = { role: \"administrator\" };",
      "meta.$responseHeaders = { \"X-WP-Total\": String(total), [\"X-WP-TotalPages\"]: pages };",
      "const exposed = \"X-WP-Total, X-WP-TotalPages, Link\"; // X-WP-Total in a comment"
    ].join("\n"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    expect(ownCallContexts(sf)).toEqual([1, 2]);
    expect(ownAdministratorChecks(sf)).toEqual([4, 5]);
    expect(ownListTotals(sf)).toEqual([6, 6]);
  });
});

describe("the checker itself", () => {
  const sample = (code: string, name = "sample.test.ts") => notesOf(ts.createSourceFile(name, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));

  test("reads comments and test titles, never code or other strings", () => {
    const notes = sample([
      "// one (events.md)",
      "const re = /\\/\\/ not a comment/; const s = \"// nor this D99\";",
      "/** two */ function f() { /* three */ }",
      "describe(\"title C1\", () => { test.each([1])(`each %s`, () => undefined); });",
      "// last"
    ].join("\n")).map(n => n.text);
    expect(notes).toEqual(["// one (events.md)", "/** two */", "/* three */", "\"title C1\"", "`each %s`", "// last"]);
  });

  test("finds upward imports of every form", () => {
    const sf = ts.createSourceFile("x.ts", [
      "import { a } from \"../mixins/a\";",
      "export * from \"./b\";",
      "import c = require(\"../services/c\");",
      "const d = require(\"fs\");",
      "void import(\"../mixins/e\");"
    ].join("\n"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    expect(moduleSpecifiers(sf)).toEqual(["../mixins/a", "./b", "../services/c", "fs", "../mixins/e"]);
  });

  test("finds `this: any` in functions, methods and function expressions, not other `this` types", () => {
    const sf = ts.createSourceFile("x.ts", [
      "function a(this: any) {}",
      "const o = { b(this: any, x: number) { return x; }, c(this: Self) {} };",
      "const d = function (this: unknown) {};",
      "const e = async function (this: any) {};"
    ].join("\n"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    expect(untypedThis(sf)).toEqual([1, 2, 4]);
  });

  test("anchors follow GitHub's heading rule and explicit ids", () => {
    const anchors = anchorsOf("# Records\n## 1. The event: fields\n<a id=\"c16\"></a>\n### C16 Read your writes\n## Records");
    expect([...anchors]).toEqual(["records", "1-the-event-fields", "c16", "c16-read-your-writes", "records-1"]);
  });
});
