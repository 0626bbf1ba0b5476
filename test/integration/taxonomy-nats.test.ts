/**
 * Term counts across processes: the taxonomy service runs in its own process, the record services in
 * another and the gateway in a third, over a real nats-server. After a sequence of event creates, term
 * changes, trashes and deletes, `count` and `hide_empty` are right at once (C16: read your writes).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";
import { KEYS } from "../helpers/harness";
import { checkedFetch } from "../helpers/contract";
import type { Json } from "../helpers/json";

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await checkedFetch(`${base}/wp-json/calendar/events/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${KEYS.admin}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe("term counts with taxonomy in its own process", () => {
  let nats: Nats;
  const nodes: Node[] = [];
  let base: string;
  let dataDir: string;

  beforeAll(async () => {
    nats = await startNats();
    // one SQLite file shared by the processes: the events' triggers keep the counts in the terms' database
    // (store/sql/term-counts.ts), so taxonomy reads the store events write, as on PostgreSQL
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "terms-nats-"));
    const bus = { TRANSPORTER: nats.url, NAMESPACE: `terms-${process.pid}`, DATA_DIR: dataDir };
    nodes.push(await startNode({ ...bus, SERVICES: "taxonomy" }));
    nodes.push(await startNode({ ...bus, SERVICES: "events,venues,organizers,i18n,changes" }));
    const gateway = await startNode({ ...bus, SERVICES: "api" }, { http: true });
    nodes.push(gateway);
    base = gateway.base!;
    await waitForHttp(`${base}/health/ready`);
  }, 60000);

  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop()));
    await nats?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const count = async (taxonomy: string, id: number) => (await call(base, "GET", `/${taxonomy}/${id}`)).body.count;
  const listed = async (taxonomy: string) => (await call(base, "GET", `/${taxonomy}?per_page=50`)).body[taxonomy].map((t: Json) => t.name).sort();

  test("count and hide_empty follow creates, term changes, trashes and deletes", async () => {
    const music = (await call(base, "POST", "/categories", { name: "Music" })).body;
    const jazz = (await call(base, "POST", "/categories", { name: "Jazz", parent: music.id })).body;
    const outdoor = (await call(base, "POST", "/tags", { name: "outdoor" })).body;
    expect(await listed("categories")).toEqual([]);

    const dates = { start_date: "2031-05-01 20:00", end_date: "2031-05-01 22:00" };
    const a = (await call(base, "POST", "/events", { title: "A", ...dates, categories: [jazz.id], tags: [outdoor.id] })).body;
    const b = (await call(base, "POST", "/events", { title: "B", ...dates, categories: [jazz.id, "Rock"] })).body;
    const draft = (await call(base, "POST", "/events", { title: "Draft", ...dates, status: "draft", categories: [music.id] })).body;
    expect(await count("categories", jazz.id)).toBe(2);
    expect(await count("categories", music.id)).toBe(0);
    expect(await count("tags", outdoor.id)).toBe(1);
    // a parent with count 0 is listed because a child has events
    expect(await listed("categories")).toEqual(["Jazz", "Music", "Rock"]);

    await call(base, "POST", `/events/${b.id}`, { categories: [music.id] });
    expect(await count("categories", jazz.id)).toBe(1);
    expect(await count("categories", music.id)).toBe(1);
    expect(await listed("categories")).toEqual(["Jazz", "Music"]);

    await call(base, "POST", `/events/${draft.id}`, { status: "publish" });
    expect(await count("categories", music.id)).toBe(2);

    expect((await call(base, "DELETE", `/events/${a.id}`)).status).toBe(200);
    expect(await count("categories", jazz.id)).toBe(0);
    expect(await count("tags", outdoor.id)).toBe(0);
    expect(await listed("tags")).toEqual([]);

    await call(base, "POST", `/events/${a.id}`, { status: "publish" });
    expect(await count("categories", jazz.id)).toBe(1);

    expect((await call(base, "DELETE", `/categories/${jazz.id}`)).status).toBe(200);
    const ev = (await call(base, "GET", `/events/${a.id}`)).body;
    expect(ev.categories).toEqual([]);
    expect(await listed("categories")).toEqual(["Music"]);
    expect(await count("categories", music.id)).toBe(2);
  });
});
