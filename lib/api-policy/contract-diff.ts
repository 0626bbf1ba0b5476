/**
 * The breaking changes between two OpenAPI 3.1 documents of one API version (docs/api-policy.md#the-breaking-change-check):
 * the released contract and the current /doc. What counts is the policy's list: a removed path, operation,
 * parameter (query, path, header or body property), status code, response field or enum value; a narrowed
 * type; a parameter made required or a new required one. Additions are not breaking. Operations marked
 * `x-experimental` (in either document) are outside the promise and left out. `$ref`s (components and JSON
 * pointers into the document) are followed.
 *
 * Direction matters: a client sends parameters and bodies (the service must keep accepting what it
 * accepted: no enum value or type taken away, no limit tightened, nothing newly required) and reads
 * answers (the service must keep answering what it answered: no field, status or media type taken away,
 * no field of another type altogether, no field that was always there made optional).
 */

type Json = Record<string, unknown>;
const VERBS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/** The value a local `$ref` (`#/components/schemas/Event`, `#/paths/~1doc/…`) points at. */
function pointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let at: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(at) && !Array.isArray(at)) return undefined;
    at = (at as Json)[key];
  }
  return at;
}

/** A schema with its `$ref`s followed (at most a few hops; a loop ends as the last schema reached). */
function resolve(doc: Json, schema: unknown): Json | undefined {
  let at = schema;
  for (let hops = 0; isObject(at) && typeof at.$ref === "string" && hops < 16; hops++) at = pointer(doc, at.$ref);
  return isObject(at) ? at : undefined;
}

/** A schema's types (`integer` read as within `number`); undefined when it names none. */
function typesOf(schema: Json): Set<string> | undefined {
  const t = schema.type;
  if (typeof t === "string") return new Set([t]);
  if (Array.isArray(t)) return new Set(t.filter((x): x is string => typeof x === "string"));
  return undefined;
}

/** Whether every value of type `a` is a value of the types `bs` (integers are numbers). */
function covered(a: string, bs: Set<string>): boolean {
  return bs.has(a) || (a === "integer" && bs.has("number"));
}

type Side = "request" | "response";

interface Walk {
  oldDoc: Json;
  newDoc: Json;
  out: string[];
  /** The pairs of schemas compared already (recursive components). */
  seen: Set<string>;
}

/** Compares the schema a client sends (`request`) or reads (`response`) at `where`. */
function compareSchema(w: Walk, oldRaw: unknown, newRaw: unknown, where: string, side: Side, depth = 0): void {
  const o = resolve(w.oldDoc, oldRaw);
  const n = resolve(w.newDoc, newRaw);
  if (!o || !n || depth > 24) return;
  const key = `${side}|${JSON.stringify(oldRaw)}|${JSON.stringify(newRaw)}|${where}`;
  if (w.seen.has(key)) return;
  w.seen.add(key);
  const ot = typesOf(o);
  const nt = typesOf(n);
  if (ot && nt) {
    if (side === "request") {
      const lost = [...ot].filter(t => !covered(t, nt));
      if (lost.length) w.out.push(`${where}: type narrowed from ${[...ot].join("|")} to ${[...nt].join("|")}`);
    } else if (![...nt].some(t => covered(t, ot) || [...ot].some(x => covered(x, new Set([t]))))) {
      // an answer of another type altogether (a string become a number); a value made nullable is an addition
      w.out.push(`${where}: type changed from ${[...ot].join("|")} to ${[...nt].join("|")}`);
    }
  }
  if (Array.isArray(o.enum)) {
    const now = Array.isArray(n.enum) ? n.enum.map(v => JSON.stringify(v)) : undefined;
    if (now && side === "request") {
      for (const v of o.enum) if (!now.includes(JSON.stringify(v))) w.out.push(`${where}: enum value ${JSON.stringify(v)} removed`);
    }
  }
  if (side === "request" && typeof n.maxLength === "number" && (typeof o.maxLength !== "number" || n.maxLength < o.maxLength)) {
    w.out.push(`${where}: maxLength tightened to ${n.maxLength}`);
  }
  const oProps = isObject(o.properties) ? o.properties : {};
  const nProps = isObject(n.properties) ? n.properties : {};
  for (const [name, schema] of Object.entries(oProps)) {
    const at = `${where}.${name}`;
    if (!(name in nProps)) {
      w.out.push(side === "response" ? `${at}: response field removed` : `${at}: body parameter removed`);
      continue;
    }
    compareSchema(w, schema, nProps[name], at, side, depth + 1);
  }
  if (side === "request") {
    const wasRequired = new Set(Array.isArray(o.required) ? o.required : []);
    for (const name of Array.isArray(n.required) ? n.required : []) {
      if (!wasRequired.has(name)) w.out.push(`${where}.${name}: ${name in oProps ? "body parameter made required" : "new required body parameter"}`);
    }
  } else {
    // a field the answer promised always to hold may not become optional
    const nowRequired = new Set(Array.isArray(n.required) ? n.required : []);
    for (const name of Array.isArray(o.required) ? o.required : []) if (name in nProps && !nowRequired.has(name)) w.out.push(`${where}.${name}: response field no longer always present`);
  }
  if (o.items !== undefined && n.items !== undefined) compareSchema(w, o.items, n.items, `${where}[]`, side, depth + 1);
  if (isObject(o.additionalProperties) && isObject(n.additionalProperties)) compareSchema(w, o.additionalProperties, n.additionalProperties, `${where}{}`, side, depth + 1);
}

function paramKey(p: Json): string {
  return `${String(p.in)}:${String(p.name)}`;
}

function parametersOf(doc: Json, pathItem: Json, op: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const raw of [...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []), ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
    const p = resolve(doc, raw);
    if (p && typeof p.name === "string") out.set(paramKey(p), p);
  }
  return out;
}

function compareOperation(w: Walk, label: string, oldItem: Json, newItem: Json, o: Json, n: Json): void {
  const oldParams = parametersOf(w.oldDoc, oldItem, o);
  const newParams = parametersOf(w.newDoc, newItem, n);
  for (const [key, p] of oldParams) {
    const now = newParams.get(key);
    const name = `${label} parameter ${String(p.name)} (${String(p.in)})`;
    if (!now) {
      w.out.push(`${name}: removed`);
      continue;
    }
    if (p.required !== true && now.required === true) w.out.push(`${name}: made required`);
    compareSchema(w, p.schema, now.schema, name, "request");
  }
  for (const [key, p] of newParams) {
    if (!oldParams.has(key) && p.required === true) w.out.push(`${label} parameter ${String(p.name)} (${String(p.in)}): new required parameter`);
  }
  const oldBody = resolve(w.oldDoc, o.requestBody);
  const newBody = resolve(w.newDoc, n.requestBody);
  if (oldBody && !newBody) w.out.push(`${label} request body: removed`);
  if (!oldBody && newBody?.required === true) w.out.push(`${label} request body: new and required`);
  if (oldBody && newBody) {
    const oc = isObject(oldBody.content) ? oldBody.content : {};
    const nc = isObject(newBody.content) ? newBody.content : {};
    for (const [media, content] of Object.entries(oc)) {
      if (!(media in nc)) {
        w.out.push(`${label} request body ${media}: no longer accepted`);
        continue;
      }
      compareSchema(w, (content as Json).schema, (nc[media] as Json).schema, `${label} body`, "request");
    }
  }
  const oldResponses = isObject(o.responses) ? o.responses : {};
  const newResponses = isObject(n.responses) ? n.responses : {};
  for (const [status, raw] of Object.entries(oldResponses)) {
    if (!(status in newResponses)) {
      w.out.push(`${label} status ${status}: removed`);
      continue;
    }
    const or = resolve(w.oldDoc, raw);
    const nr = resolve(w.newDoc, newResponses[status]);
    const oc = or && isObject(or.content) ? or.content : {};
    const nc = nr && isObject(nr.content) ? nr.content : {};
    for (const [media, content] of Object.entries(oc)) {
      if (!(media in nc)) {
        w.out.push(`${label} status ${status} ${media}: no longer answered`);
        continue;
      }
      compareSchema(w, (content as Json).schema, (nc[media] as Json).schema, `${label} ${status}`, "response");
    }
  }
}

/** Every breaking change from `released` to `current`, one sentence each naming what changed; [] when none. */
export function breakingChanges(released: Json, current: Json): string[] {
  const w: Walk = { oldDoc: released, newDoc: current, out: [], seen: new Set() };
  const oldPaths = isObject(released.paths) ? released.paths : {};
  const newPaths = isObject(current.paths) ? current.paths : {};
  for (const [path, rawItem] of Object.entries(oldPaths)) {
    const oldItem = resolve(released, rawItem) ?? {};
    const newItem = resolve(current, newPaths[path]);
    const ops = VERBS.filter(v => isObject(oldItem[v]) && (oldItem[v] as Json)["x-experimental"] !== true);
    if (!newItem) {
      if (ops.length) w.out.push(`${path}: path removed`);
      continue;
    }
    for (const verb of ops) {
      const label = `${verb.toUpperCase()} ${path}`;
      const n = newItem[verb];
      if (!isObject(n)) {
        w.out.push(`${label}: operation removed`);
        continue;
      }
      if (n["x-experimental"] === true) continue;
      compareOperation(w, label, oldItem, newItem, oldItem[verb] as Json, n);
    }
  }
  return [...new Set(w.out)];
}
