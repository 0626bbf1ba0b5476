import { ScopedStorage } from "../../store/scoped-storage";

const tick = () => new Promise<void>(resolve => setImmediate(resolve));

describe("a storage switched on only while work runs in it", () => {
  it("gives the store to everything the run starts, and none after the run", async () => {
    const s = new ScopedStorage<string>();
    const seen: Array<string | undefined> = [];
    await s.run("a", async () => {
      seen.push(s.getStore());
      await tick();
      seen.push(await Promise.resolve().then(() => s.getStore()));
    });
    seen.push(s.getStore());
    expect(seen).toEqual(["a", "a", undefined]);
  });

  it("keeps each run's store while another run settles", async () => {
    const s = new ScopedStorage<string>();
    let release!: () => void;
    const held = new Promise<void>(resolve => { release = resolve; });
    const long = s.run("long", async () => {
      await held;
      return s.getStore();
    });
    await s.run("short", async () => { await tick(); });
    release();
    expect(await long).toBe("long");
  });

  it("nests, the inner store inside and the outer after it", async () => {
    const s = new ScopedStorage<string>();
    const seen = await s.run("outer", async () => {
      const inner = await s.run("inner", async () => { await tick(); return s.getStore(); });
      await tick();
      return [inner, s.getStore()];
    });
    expect(seen).toEqual(["inner", "outer"]);
  });

  it("passes a failure on, thrown or rejected, and is usable after it", async () => {
    const s = new ScopedStorage<number>();
    await expect(s.run(1, async () => { throw new Error("no"); })).rejects.toThrow("no");
    expect(() => s.run(2, () => { throw new Error("at once"); })).toThrow("at once");
    expect(s.getStore()).toBeUndefined();
    expect(await s.run(3, async () => s.getStore())).toBe(3);
  });

  it("reads no store in work that outlives every run (what it held is closed by then)", async () => {
    const s = new ScopedStorage<string>();
    let later!: Promise<string | undefined>;
    await s.run("gone", async () => {
      later = new Promise(resolve => setTimeout(() => resolve(s.getStore()), 20));
    });
    expect(await later).toBeUndefined();
  });

  it("runs a function with no store inside a run", async () => {
    const s = new ScopedStorage<string>();
    expect(await s.run("x", async () => s.exit(() => s.getStore()))).toBeUndefined();
  });
});
