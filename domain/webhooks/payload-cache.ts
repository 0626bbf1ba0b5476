/**
 * The payload bodies a webhooks node keeps (immutable once written, by site and feed sequence): the
 * fan-out keeps each it renders, the sending reads them before asking the store.
 */

/** Kept payload bodies per node. */
const PAYLOAD_CACHE = 2000;

export class PayloadCache {
  private readonly bodies = new Map<string, string>();

  keep(site: number, seq: number, body: string): void {
    if (this.bodies.size >= PAYLOAD_CACHE) this.bodies.delete(this.bodies.keys().next().value as string);
    this.bodies.set(`${site}:${seq}`, body);
  }

  kept(site: number, seq: number): string | undefined {
    return this.bodies.get(`${site}:${seq}`);
  }
}
