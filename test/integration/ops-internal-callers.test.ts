/**
 * README "Action API for internal callers": another Moleculer node on the same bus (same TRANSPORTER and
 * NAMESPACE, default JSON serializer, no gateway) calls the record services' actions directly. Params are
 * validated with the HTTP schemas (a Moleculer ValidationError when bad); other failures carry the REST
 * code as `type` and the status as `code`; a call without `meta.caller` is trusted; writes are announced
 * on the bus.
 */
import { Context, Errors, ServiceBroker } from "moleculer";
import { startNats, startNode, Nats, Node } from "../helpers/processes";
import type { Json } from "../helpers/json";

describe("internal callers on the bus", () => {
  let nats: Nats;
  let records: Node;
  let broker: ServiceBroker;
  const announced: Array<{ event: string; id: number }> = [];

  beforeAll(async () => {
    nats = await startNats();
    const namespace = `ops-internal-${process.pid}`;
    records = await startNode({ TRANSPORTER: nats.url, NAMESPACE: namespace, SERVICES: "events,venues,organizers,taxonomy,i18n" });
    // as in the README, with this run's bus
    broker = new ServiceBroker({ namespace, transporter: { type: "NATS", options: { url: nats.url } }, logger: false, nodeID: `internal-${process.pid}` });
    broker.createService({
      name: "listener",
      events: {
        "calendar.event.*"(ctx: Context<{ id: number }>) {
          announced.push({ event: String(ctx.eventName), id: ctx.params.id });
        }
      }
    });
    await broker.start();
    await broker.waitForServices(["events"], 30000);
  }, 60000);

  afterAll(async () => {
    await broker?.stop();
    await records?.stop();
    await nats?.stop();
  });

  test("events.create and events.list with validated params, as in the README", async () => {
    const created: Json = await broker.call("events.create", { title: "Board meeting", start_date: "tomorrow 09:00", end_date: "tomorrow 10:00", featured: true, unknown_field: "dropped" });
    expect(created).toMatchObject({ id: expect.any(Number), title: "Board meeting", featured: true, status: "publish" });
    expect(created).not.toHaveProperty("unknown_field");
    await broker.call("events.create", { title: "Lunch", start_date: "tomorrow 12:00", end_date: "tomorrow 13:00" });

    const page: Json = await broker.call("events.list", { per_page: 5, featured: true });
    expect(page).toMatchObject({ total: 1, total_pages: 1 });
    expect(page.events.map((e: Json) => e.id)).toEqual([created.id]);
    const all: Json = await broker.call("events.list", { per_page: 5 });
    expect(all.events.map((e: Json) => e.title)).toEqual(["Board meeting", "Lunch"]);

    // writes are announced on the bus
    const deadline = Date.now() + 5000;
    while (!announced.some(a => a.id === created.id) && Date.now() < deadline) await new Promise(r => setTimeout(r, 20));
    expect(announced).toContainEqual({ event: "calendar.event.created", id: created.id });
  });

  test("bad params are a Moleculer ValidationError; other failures carry the REST code", async () => {
    const bad: Json = await broker.call("events.list", { per_page: "lots" }).catch(err => err);
    expect(bad).toBeInstanceOf(Errors.ValidationError);
    expect(bad).toMatchObject({ type: "VALIDATION_ERROR", code: 422, data: [expect.objectContaining({ field: "per_page" })] });
    const missing: Json = await broker.call("events.create", { title: "No dates" }).catch(err => err);
    expect(missing).toBeInstanceOf(Errors.ValidationError);
    expect(missing.data.map((d: Json) => d.field)).toEqual(expect.arrayContaining(["start_date", "end_date"]));

    const notFound: Json = await broker.call("events.get", { id: 999999 }).catch(err => err);
    expect(notFound).toMatchObject({ type: "rest-event-not-found", code: 404, data: { status: 404 } });
  });

  test("meta.caller acts for a user or an anonymous caller instead of the trusted node", async () => {
    const anonymous: Json = await broker.call("events.create", { title: "x", start_date: "tomorrow 09:00", end_date: "tomorrow 10:00" }, { meta: { caller: null } }).catch(err => err);
    expect(anonymous).toMatchObject({ code: 401, data: { status: 401 } });
    const subscriber: Json = await broker.call("events.create", { title: "x", start_date: "tomorrow 09:00", end_date: "tomorrow 10:00" }, { meta: { caller: { id: 7, role: "subscriber" } } }).catch(err => err);
    expect(subscriber).toMatchObject({ code: 403, data: { status: 403 } });
    const draft: Json = await broker.call("events.create", { title: "Draft by author", start_date: "tomorrow 09:00", end_date: "tomorrow 10:00", status: "draft" }, { meta: { caller: { id: 3, role: "author" } } });
    expect(draft).toMatchObject({ status: "draft", author: "3" });
    const fr: Json = await broker.call("events.get", { id: 999999 }, { meta: { language: "fr" } }).catch(err => err);
    expect(fr).toMatchObject({ type: "rest-event-not-found", code: 404 });
  });
});
