/**
 * The test harness's ports (test/helpers/harness.ts `freePort`): a port is handed to a child process that
 * binds it a moment later, so one jest worker must never hand out a port twice, nor two workers the same
 * one (the node that lost such a race exited while its test spoke to the other test's node).
 */
import { freePort } from "../helpers/harness";

describe("test ports", () => {
  test("one file never gets the same port twice, and every port is below the kernel's ephemeral range", async () => {
    const ports: number[] = [];
    for (let i = 0; i < 300; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(10_000);
      expect(p).toBeLessThan(32_768);
    }
  });

  test("each jest worker draws from a slice of its own", async () => {
    const original = process.env.JEST_WORKER_ID;
    const drawn = async (worker: string) => {
      process.env.JEST_WORKER_ID = worker;
      const ports: number[] = [];
      for (let i = 0; i < 50; i++) ports.push(await freePort());
      return ports;
    };
    try {
      const [first, second] = [await drawn("1"), await drawn("2")];
      expect(Math.max(...first)).toBeLessThan(Math.min(...second));
    } finally {
      if (original === undefined) delete process.env.JEST_WORKER_ID;
      else process.env.JEST_WORKER_ID = original;
    }
  });
});
