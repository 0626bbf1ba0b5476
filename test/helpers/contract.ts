/**
 * The response validator of the integration suite: every answer a test receives through the shared
 * helpers (harness.ts, ops.ts, `checkedFetch` below for the tests of separate processes; the fuzzer calls
 * `problems` itself) is checked against the OpenAPI document the service serves at /doc, for its path,
 * method and status. An answer the document does not describe — an undocumented status, a body
 * that does not match its schema, a content type it does not list — throws, failing the test that got it.
 *
 * Answers outside the document (the namespace index, health, /docs, the WordPress discovery routes, other
 * hosts' roots) are not checked here; their own tests check them.
 */
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { ValidateFunction } from "ajv";
import { PATH_LANGUAGES, NAMESPACE_PATH } from "../../lib/settings";
import type { Json } from "./json";

type Doc = { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, unknown> } };

const DOC_ID = "https://contract.invalid/doc.json";
const VERBS = new Set(["get", "post", "put", "patch", "delete"]);

/** An Ajv that reads the document's schemas (JSON Schema 2020-12, OpenAPI 3.1's dialect). */
export function documentAjv(doc: unknown): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // OpenAPI's own numeric formats carry no rule beyond the type.
  for (const name of ["double", "float", "int32", "int64"]) ajv.addFormat(name, true);
  ajv.addSchema(doc as object, DOC_ID);
  return ajv;
}

const pointer = (...parts: string[]) => parts.map(p => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/** A validator of one component schema (`Event`, `Venue`…) of `doc`. */
export function componentValidator(ajv: Ajv2020, name: string): ValidateFunction {
  return ajv.compile({ $ref: `${DOC_ID}#/${pointer("components", "schemas", name)}` });
}

export interface Received {
  method: string;
  /** The full URL asked. */
  url: string;
  status: number;
  contentType: string | null;
  text: string;
}

export interface ResponseValidator {
  /** Problems of one answer ([] when the document describes it), or undefined when it is not under the document. */
  problems(answer: Received): string[] | undefined;
}

/** The documented path template matching `path` (`/events/12` → `/events/{id}`). */
function templateOf(doc: Doc, path: string): string | undefined {
  const exact = Object.keys(doc.paths).find(p => p === path);
  if (exact) return exact;
  const parts = path.split("/");
  return Object.keys(doc.paths).find(template => {
    const t = template.split("/");
    return t.length === parts.length && t.every((seg, i) => (seg.startsWith("{") ? parts[i] !== "" : seg === parts[i]));
  });
}

/** `path` relative to the namespace when `url` is under one of the site's api roots. */
export function namespacePath(restPrefix: string, url: string): string | undefined {
  let path = new URL(url).pathname;
  const lang = PATH_LANGUAGES.find(l => path.startsWith(`/${l}/`));
  if (lang) path = path.slice(lang.length + 1);
  const prefix = `/${restPrefix}/${NAMESPACE_PATH}`;
  if (!path.startsWith(`${prefix}/`)) return undefined;
  path = path.slice(prefix.length);
  // Trailing slashes route as without them.
  if (path.length > 1) path = path.replace(/\/+$/, "") || "/";
  // The namespace index itself is not an operation of the document.
  return path === "/" ? undefined : path;
}

export function responseValidator(doc: Doc, restPrefix = "wp-json"): ResponseValidator {
  const ajv = documentAjv(doc);
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (ptr: string) => {
    let v = compiled.get(ptr);
    if (!v) compiled.set(ptr, (v = ajv.compile({ $ref: `${DOC_ID}#/${ptr}` })));
    return v;
  };
  const errorPtr = (): string | undefined => {
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [verb, op] of Object.entries<Json>(item)) {
        if (op?.responses?.["404"]?.content?.["application/json"]) return pointer("paths", p, verb, "responses", "404", "content", "application/json", "schema");
      }
    }
    return undefined;
  };
  const anyError = errorPtr();

  function checkBody(ptr: string, text: string): string[] {
    let body: unknown;
    try { body = JSON.parse(text); } catch { return [`the body is not JSON: ${text.slice(0, 200)}`]; }
    const validate = validatorAt(ptr);
    if (validate(body)) return [];
    return (validate.errors ?? []).slice(0, 8).map(e => `${e.instancePath || "(body)"} ${e.message ?? ""} ${JSON.stringify(e.params)}`);
  }

  return {
    problems(answer) {
      const path = namespacePath(restPrefix, answer.url);
      if (path === undefined) return undefined;
      const method = answer.method.toLowerCase();
      if (method === "options") return undefined;
      const template = templateOf(doc, path);
      const verb = method === "head" ? "get" : method;
      const op = template ? doc.paths[template][verb] : undefined;
      const status = String(answer.status);
      const type = (answer.contentType ?? "").split(";")[0].trim().toLowerCase();
      if (!op || !VERBS.has(verb)) {
        // Not an operation of the document: it must be the contract's error answer.
        if (answer.status < 400) return [`${answer.method} ${path}: ${status} for an operation the document does not list`];
        if (method === "head") return answer.text === "" ? [] : [`HEAD ${path}: a body where none is sent`];
        return anyError && type === "application/json" ? checkBody(anyError, answer.text) : [`${status} without the contract's JSON error body`];
      }
      const where = `${answer.method} ${template} → ${status}`;
      const response = op.responses?.[status];
      if (!response) return [`${where}: the document lists no such status (${Object.keys(op.responses ?? {}).join(", ")})`];
      const content = response.content as Record<string, unknown> | undefined;
      if (method === "head" || answer.status === 304) return answer.text === "" ? [] : [`${where}: a body where none is sent`];
      if (!content) return answer.text === "" ? [] : [`${where}: a body the document does not describe`];
      if (!(type in content)) return [`${where}: content type "${type}" not among ${Object.keys(content).join(", ")}`];
      if (type !== "application/json") {
        const schema = (content[type] as { schema?: { pattern?: string } }).schema;
        return schema?.pattern && !new RegExp(schema.pattern).test(answer.text) ? [`${where}: the ${type} body does not match ${schema.pattern}`] : [];
      }
      return checkBody(pointer("paths", template as string, verb, "responses", status, "content", type, "schema"), answer.text).map(p => `${where}: ${p}`);
    }
  };
}

/** The document served at `{base}/{restPrefix}/calendar/events/v1/doc`. */
export async function servedDocument(base: string, restPrefix = "wp-json"): Promise<unknown> {
  const res = await fetch(`${base}/${restPrefix}/${NAMESPACE_PATH}/doc`);
  if (res.status !== 200) throw new Error(`GET /doc answered ${res.status}`);
  return res.json();
}

/** Checks answers against a document, loaded once (the served one, or one built in this process). */
export class ContractChecker {
  private validator?: Promise<ResponseValidator>;

  constructor(private readonly document: () => Promise<unknown>, private readonly restPrefix = "wp-json") {}

  private load(): Promise<ResponseValidator> {
    if (!this.validator) {
      this.validator = this.document().then(doc => responseValidator(doc as Doc, this.restPrefix));
      this.validator.catch(() => { this.validator = undefined; });
    }
    return this.validator;
  }

  /** Throws when the document does not describe the answer. */
  async check(answer: Received): Promise<void> {
    if (namespacePath(this.restPrefix, answer.url) === undefined) return;
    const problems = (await this.load()).problems(answer);
    if (problems && problems.length) {
      throw new Error(`The answer to ${answer.method} ${answer.url} disagrees with the /doc document:\n  ${problems.join("\n  ")}\nbody: ${answer.text.slice(0, 500)}`);
    }
  }
}

/**
 * For answers of nodes started from the compiled service (test/helpers/processes.ts): the document this
 * source builds, which is the one they serve.
 */
export const builtContract = new ContractChecker(async () => {
  require("../../services");
  const { openApiDocument } = require("../../lib/discovery");
  return openApiDocument("http://localhost/wp-json", "en");
});

/** `fetch`, with the answer checked against the document (a mismatch throws). */
export async function checkedFetch(url: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  const text = await res.clone().text();
  await builtContract.check({ method: init?.method ?? "GET", url, status: res.status, contentType: res.headers.get("content-type"), text });
  return res;
}
