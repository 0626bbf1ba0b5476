/**
 * One process or many, same code: the gateway in one process and the record services in another, over a
 * real nats-server, answer byte-identically to the one-process service (after removing the values that
 * depend on the clock, C29: identical answers across topologies). And ids stay unique when two gateways create at once through the bus.
 */
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";
import { KEYS } from "../helpers/harness";
import { checkedFetch } from "../helpers/contract";

const BASE_URL = "http://calendar.test";
const RECORD_SERVICES = "events,venues,organizers,taxonomy,i18n,changes";
const CLOCK_KEYS = new Set(["date", "date_utc", "modified", "modified_utc", "rest_url", "next_rest_url", "previous_rest_url"]);

/** The body without clock-dependent values and with start dates reduced to their time of day. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (CLOCK_KEYS.has(k)) continue;
    if (k === "validFrom") continue;
    // the namespace index documents the default list window (now … now + 24 months) down to the second
    if (k === "default" && typeof v === "string" && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(v)) continue;
    out[k] = stable(v);
  }
  return out;
}

async function call(base: string, method: string, path: string, body?: unknown, key: string | null = KEYS.admin) {
  const headers: Record<string, string> = {};
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await checkedFetch(`${base}/wp-json/calendar/events/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), headers: res.headers };
}

describe("split over NATS versus one process", () => {
  let nats: Nats;
  const nodes: Node[] = [];
  let single: Node;
  let gateway: Node;
  let gateway2: Node;

  beforeAll(async () => {
    nats = await startNats();
    const namespace = `topo-${process.pid}`;
    const bus = { TRANSPORTER: nats.url, NAMESPACE: namespace, BASE_URL };
    nodes.push(await startNode({ ...bus, SERVICES: RECORD_SERVICES }));
    // two gateways keep no answers of their own (one would refuse the in-process cache: CACHER, README "Scaling out")
    gateway = await startNode({ ...bus, SERVICES: "api", CACHER: "off" }, { http: true });
    gateway2 = await startNode({ ...bus, SERVICES: "api", CACHER: "off" }, { http: true });
    single = await startNode({ BASE_URL }, { http: true });
    nodes.push(gateway, gateway2, single);
    await Promise.all([gateway, gateway2, single].map(n => waitForHttp(`${n.base}/health/ready`)));
  }, 60000);

  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop()));
    await nats?.stop();
  });

  test("the same requests give the same answers", async () => {
    const script: Array<[string, string, unknown?, (string | null)?]> = [
      ["GET", ""],
      ["POST", "/events", { title: "Jazz night", start_date: "2030-06-10 20:00:00", end_date: "2030-06-10 23:00:00", timezone: "Europe/Rome", cost: "20$", description: "Three sets" }],
      ["POST", "/events", { title: "Jazz night", start_date: "2030-06-11 20:00:00", end_date: "2030-06-11 23:00:00", featured: true }],
      ["POST", "/events", { title: "", start_date: "nope" }],
      ["POST", "/events", { title: "Draft", start_date: "2030-06-12", end_date: "2030-06-12", status: "draft" }, KEYS.contributor],
      ["GET", "/events/1"],
      ["GET", "/events/by-slug/jazz-night-2"],
      ["POST", "/events/2", { title: "Jazz night (late)", all_day: true }],
      ["GET", "/events?start_date=2030-01-01&end_date=2031-01-01"],
      ["GET", "/events?start_date=2030-01-01&end_date=2031-01-01&featured=1&per_page=1"],
      ["GET", "/events?status=draft", undefined, null],
      ["DELETE", "/events/1"],
      ["DELETE", "/events/1"],
      ["GET", "/events/1"],
      ["GET", "/events/999"],
      ["PATCH", "/events/2", { title: "x" }, KEYS.contributor],
      ["GET", "/nothing"]
    ];
    for (const [method, path, body, key] of script) {
      const a = await call(gateway.base!, method, path, body, key === undefined ? KEYS.admin : key);
      const b = await call(single.base!, method, path, body, key === undefined ? KEYS.admin : key);
      expect({ method, path, status: a.status }).toEqual({ method, path, status: b.status });
      expect(JSON.stringify(stable(a.body))).toBe(JSON.stringify(stable(b.body)));
      for (const h of ["x-wp-total", "x-tec-totalpages", "link"]) expect(a.headers.get(h)).toBe(b.headers.get(h));
    }
  });

  test("2 000 concurrent creates through two gateways get 2 000 distinct ids", async () => {
    const perGateway = 1000;
    const ids: number[] = [];
    const failures: string[] = [];
    async function burst(base: string, n: number, tag: string) {
      let next = 0;
      const worker = async () => {
        while (next < n) {
          const i = next++;
          const res = await call(base, "POST", "/events", { title: `Concurrent ${tag} ${i}`, start_date: "2031-01-01 10:00", end_date: "2031-01-01 11:00" });
          if (res.status === 201) ids.push(res.body.id);
          else failures.push(`${res.status} ${JSON.stringify(res.body)}`);
        }
      };
      await Promise.all(Array.from({ length: 25 }, worker));
    }
    await Promise.all([burst(gateway.base!, perGateway, "a"), burst(gateway2.base!, perGateway, "b")]);
    expect(failures).toEqual([]);
    expect(ids).toHaveLength(2000);
    expect(new Set(ids).size).toBe(2000);
    const list = await call(gateway.base!, "GET", "/events?start_date=2031-01-01&end_date=2031-01-02&per_page=1");
    expect(list.body.total).toBe(2000);
  }, 120000);
});
