/**
 * Which services a process runs (SERVICES), and the topology rule of the embedded store (C23): events,
 * venues and organizers share the post id sequence, so on the embedded store they run together.
 */
import type { ServiceBroker, ServiceSchema } from "moleculer";
import { Settings } from "../lib/settings";
import apiService from "./api.service";
import EventsService from "./events.service";
import VenuesService from "./venues.service";
import OrganizersService from "./organizers.service";
import TaxonomyService from "./taxonomy.service";
import GeolocationService from "./geolocation.service";
import I18nService from "./i18n.service";
import ChangesService from "./changes.service";
import PlatformService from "./platform.service";
import WebhooksService from "./webhooks.service";
import ImportsService from "./imports.service";

export const SERVICE_SCHEMAS: Record<string, () => ServiceSchema> = {
  api: apiService,
  events: () => EventsService,
  venues: () => VenuesService,
  organizers: () => OrganizersService,
  taxonomy: () => TaxonomyService,
  geolocation: () => GeolocationService,
  i18n: () => I18nService,
  changes: () => ChangesService,
  platform: () => PlatformService,
  webhooks: () => WebhooksService,
  imports: () => ImportsService
};

const POST_SERVICES = ["events", "venues", "organizers"];

/** A message when SERVICES cannot work on this store, else undefined. */
export function checkTopology(s: Settings): string | undefined {
  const unknown = s.services.filter(name => !SERVICE_SCHEMAS[name]);
  if (unknown.length) return `SERVICES names unknown services: ${unknown.join(", ")} (known: ${Object.keys(SERVICE_SCHEMAS).join(", ")})`;
  const posts = POST_SERVICES.filter(name => s.services.includes(name));
  // Processes share a SQLite file (one host) or a PostgreSQL/MongoDB database; an in-memory database is
  // one process's own, so the services drawing from one id sequence must then run together (C23: topology by store; C38: store misconfiguration).
  const inMemory = !s.mongoUri && !s.databaseUrl && s.dataDir === ":memory:";
  if (inMemory && posts.length > 0 && posts.length < POST_SERVICES.length)
    return `With DATA_DIR=:memory:, events, venues and organizers share one id sequence and must run in one process ` +
      `(SERVICES has only ${posts.join(", ")}). Run them together, or keep the store in a DATA_DIR on disk, or set DATABASE_URL.`;
  // Their writes store their change-feed entries with them (C42: one transaction per write): the feed's reader must read that database.
  if (inMemory && s.services.includes("changes") && posts.length < POST_SERVICES.length)
    return "With DATA_DIR=:memory:, the changes service reads the feed that events, venues and organizers write with their records " +
      "and must run in their process (SERVICES has changes without them). Run them together, or keep the store in a DATA_DIR on disk, or set DATABASE_URL.";
  // The webhooks service reads the same feed (docs/webhooks.md).
  if (inMemory && s.services.includes("webhooks") && posts.length < POST_SERVICES.length)
    return "With DATA_DIR=:memory:, the webhooks service reads the change feed that events, venues and organizers write with their records " +
      "and must run in their process (SERVICES has webhooks without them). Run them together, or keep the store in a DATA_DIR on disk, or set DATABASE_URL.";
  // Term counts are kept by the events' writes in their own transaction (store/sql/term-counts.ts): taxonomy
  // must read the database they write.
  if (inMemory && s.services.includes("taxonomy") && !s.services.includes("events"))
    return "With DATA_DIR=:memory:, the events' writes keep the terms' counts in their own database, which the taxonomy service " +
      "must read: it must run in their process (SERVICES has taxonomy without them). Run them together, or keep the store in a DATA_DIR on disk, or set DATABASE_URL.";
  // Sites live in that database too (docs/sites.md): the gateway reads them, the record services write their records.
  if (inMemory && s.services.includes("platform") && (!s.services.includes("api") || posts.length < POST_SERVICES.length))
    return "With DATA_DIR=:memory:, the platform service keeps the sites in the database the gateway and the record services use " +
      "and must run in their process (SERVICES has platform without them). Run them together, or keep the store in a DATA_DIR on disk, or set DATABASE_URL.";
  // An import finds the events it created by their source identity in the events' database (docs/imports.md).
  if (inMemory && s.services.includes("imports") && posts.length < POST_SERVICES.length)
    return "With DATA_DIR=:memory:, the imports service reads the events it wrote in their database " +
      "and must run in their process (SERVICES has imports without them). Run them together, or keep the store in a DATA_DIR on disk, or set DATABASE_URL.";
  return undefined;
}

export function createServices(broker: ServiceBroker, s: Settings): void {
  for (const name of s.services) broker.createService(SERVICE_SCHEMAS[name]());
}
