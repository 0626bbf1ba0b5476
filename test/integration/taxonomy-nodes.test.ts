/**
 * Two taxonomy nodes on one database re-parenting categories at once never leave a loop in the tree:
 * the check that a new parent is not below the term and the write of it run under the store's lock of
 * the category tree (an advisory lock on PostgreSQL, held across nodes), not a queue of one service.
 * Each node is a broker of its own with a taxonomy service of its own, on the same database (PostgreSQL
 * under TEST_STORE=postgres, else one SQLite file), so a lock kept inside one service orders nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ServiceBroker } from "moleculer";
import { createTestDatabase, TestDatabase } from "../helpers/postgres";
import { TEST_API_KEYS } from "../helpers/harness";
import type { Json } from "../helpers/json";

const ROUNDS = 40;

describe("two taxonomy nodes re-parenting at once", () => {
  let db: TestDatabase | undefined;
  let dir: string | undefined;
  const brokers: ServiceBroker[] = [];

  beforeAll(async () => {
    if (process.env.TEST_STORE === "postgres") db = await createTestDatabase("tree");
    else dir = fs.mkdtempSync(path.join(os.tmpdir(), "tree-"));
    Object.assign(process.env, { DATABASE_URL: db?.url ?? "", DATA_DIR: dir ?? ":memory:", API_KEYS: TEST_API_KEYS, DATABASE_POOL_MAX: "6", LOG_LEVEL: "warn" });
    const { readSettings, useSettings } = require("../../lib/settings");
    useSettings(readSettings(process.env));
    const taxonomy = require("../../services/taxonomy.service").default;
    for (const nodeID of ["tree-a", "tree-b"]) {
      const broker = new ServiceBroker({ logger: false, nodeID });
      // a copy of the schema each: two service instances, as on two nodes
      broker.createService({ ...taxonomy });
      brokers.push(broker);
    }
    await brokers[0].start();
    await brokers[1].start();
  }, 60_000);

  afterAll(async () => {
    for (const b of brokers) await b.stop();
    await db?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = (node: number, action: string, params: Record<string, unknown>) => brokers[node].call(`taxonomy.categories.${action}`, params) as Promise<Json>;

  /** The parents of `ids` as the store holds them, read again through the other node. */
  async function parents(ids: number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    for (const id of ids) out.set(id, (await call(1, "get", { id })).parent as number);
    return out;
  }

  /** Whether following parents from any of `ids` comes back to where it started. */
  function hasLoop(parentOf: Map<number, number>): boolean {
    for (const start of parentOf.keys()) {
      let at = parentOf.get(start) ?? 0;
      for (let steps = 0; at !== 0 && steps <= parentOf.size; steps++) {
        if (at === start) return true;
        at = parentOf.get(at) ?? 0;
      }
    }
    return false;
  }

  test("A under B on one node and B under A on the other, many rounds: never a loop", async () => {
    let moved = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // a fresh pair each round (a category cannot be moved back to the top: `parent` is positive)
      const a = (await call(0, "create", { name: `Tree A${round}` })).id as number;
      const b = (await call(1, "create", { name: `Tree B${round}` })).id as number;
      // which node starts first alternates, so neither always wins the race
      const [first, second] = round % 2 === 0 ? [0, 1] : [1, 0];
      await Promise.all([call(first, "update", { id: a, parent: b }), call(second, "update", { id: b, parent: a })]);
      const now = await parents([a, b]);
      expect({ round, loop: hasLoop(now) }).toEqual({ round, loop: false });
      // one of the two moves landed (the other found the loop and kept its term at the top)
      if (now.get(a) === b || now.get(b) === a) moved++;
    }
    expect(moved).toBe(ROUNDS);
  }, 120_000);

  test("a ring of three moved at once from both nodes: never a loop", async () => {
    for (let round = 0; round < ROUNDS / 2; round++) {
      const ids: number[] = [];
      for (const name of ["Ring A", "Ring B", "Ring C"]) ids.push((await call(round % 2, "create", { name: `${name}${round}` })).id as number);
      await Promise.all(ids.map((id, i) => call((i + round) % 2, "update", { id, parent: ids[(i + 1) % 3] })));
      expect({ round, loop: hasLoop(await parents(ids)) }).toEqual({ round, loop: false });
    }
  }, 120_000);
});
