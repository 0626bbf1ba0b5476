/**
 * The change-source mixin (mixins/change-source.mixin.ts) asks its owning service for one thing, the
 * RecordRenderer handed over in created(): `changeRecords` answers the records it renders, by id, and a
 * service that hands none over does not start.
 */
import { ServiceBroker, type ServiceSchema } from "moleculer";
import { ChangeSourceMixin } from "../../mixins/change-source.mixin";

const DOCS = [{ _id: 3, name: "three" }, { _id: 5, name: "five" }];

function termService(name: string, withRenderer: boolean): ServiceSchema {
  return {
    name,
    mixins: [ChangeSourceMixin({ kind: "term" })],
    created() {
      this.store = { find: async (query: { _id: { $in: number[] } }) => DOCS.filter(d => query._id.$in.includes(d._id)) };
      if (withRenderer) this.recordRenderer = { render: async (_ctx: unknown, docs: Array<{ _id: number; name: string }>) => docs.map(d => ({ id: d._id, shown: d.name.toUpperCase() })) };
    }
  };
}

describe("change-source: the owner's record renderer", () => {
  test("changeRecords answers what the renderer makes of the records asked for, by id", async () => {
    const broker = new ServiceBroker({ logger: false });
    broker.createService(termService("terms-a", true));
    await broker.start();
    try {
      expect(await broker.call("terms-a.changeRecords", { ids: [5, 3, 5] })).toEqual({ 3: { id: 3, shown: "THREE" }, 5: { id: 5, shown: "FIVE" } });
      expect(await broker.call("terms-a.changeRecords", { ids: [] })).toEqual({});
    } finally {
      await broker.stop();
    }
  });

  test("a service that hands no renderer over stops at start, saying what it lacks", async () => {
    const broker = new ServiceBroker({ logger: false });
    broker.createService(termService("terms-b", false));
    await expect(broker.start()).rejects.toThrow("terms-b: the change-source mixin needs the service's recordRenderer");
    await broker.stop().catch(() => undefined);
  });
});
