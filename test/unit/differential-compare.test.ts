/** test/helpers/differential.ts: what two answers of one request may differ in (each side reads its own clock). */
import { masked, sameAnswer } from "../helpers/differential";

describe("differential answers", () => {
  it("are the same when only the seconds of a clock time differ", () => {
    expect(sameAnswer('200 {"modified":"2026-11-27 18:45:03"}', '200 {"modified":"2026-11-27 18:45:07"}')).toBe(true);
  });
  it("are the same across a minute's, an hour's and a day's boundary when the readings are seconds apart", () => {
    expect(sameAnswer('{"date":"2026-11-27 18:45:12","modified":"2026-11-27 18:45:59"}', '{"date":"2026-11-27 18:45:12","modified":"2026-11-27 18:46:00"}')).toBe(true);
    expect(sameAnswer('{"modified_utc":"2026-11-27T23:59:58Z"}', '{"modified_utc":"2026-11-28T00:00:01Z"}')).toBe(true);
    // with a time that is no instant (a floating draft's date) beside them
    expect(sameAnswer('{"date_utc":"0000-00-00 00:00:00","modified":"2026-11-27 18:45:59"}', '{"date_utc":"0000-00-00 00:00:00","modified":"2026-11-27 18:46:00"}')).toBe(true);
  });
  it("are the same when clock times within one minute are further apart than the slack (their seconds are masked)", () => {
    expect(sameAnswer('{"modified":"2026-11-27 18:45:01"}', '{"modified":"2026-11-27 18:45:50"}')).toBe(true);
  });
  it("differ when a clock time is further apart than the slack, or any other character differs", () => {
    expect(sameAnswer('{"modified":"2026-11-27 18:45:59"}', '{"modified":"2026-11-27 18:47:00"}')).toBe(false);
    expect(sameAnswer('{"date":"2026-11-27 18:45:59","id":1}', '{"date":"2026-11-27 18:46:00","id":2}')).toBe(false);
    expect(sameAnswer('201 {"date":"2026-11-27 18:45:59"}', '200 {"date":"2026-11-27 18:45:59"}')).toBe(false);
  });
  it("differ when one side holds a clock time more", () => {
    expect(sameAnswer('["2026-11-27 18:45:59"]', '["2026-11-27 18:45:59","2026-11-27 18:45:59"]')).toBe(false);
    expect(sameAnswer('{"a":"2026-11-27 18:45:59"}', '{"a":"x"}')).toBe(false);
  });
  it("keep the separator of a clock time and mask its seconds when shown", () => {
    expect(masked('{"a":"2026-11-27T18:45:59Z","b":"2026-11-27 18:45:59","seconds":"07"}')).toBe('{"a":"2026-11-27T18:45:SSZ","b":"2026-11-27 18:45:SS","seconds":"SS"}');
  });
});
