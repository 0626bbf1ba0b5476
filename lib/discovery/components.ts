/**
 * `components.schemas` of the OpenAPI document (docs/discovery.md#the-openapi-document): the records the routes
 * answer with. Field lists follow docs/records.md#event-fields, #venue-fields, #organizer-fields and
 * #term-fields; the types are
 * the ones the plugin documents (so `author` is an integer here although records carry it as a string).
 */

type Property = Record<string, unknown>;
type Fields = Array<[name: string, type: string, description: string, extra?: Property]>;

const ref = (name: string) => `#/components/schemas/${name}`;
const refTo = (name: string): Property => ({ $ref: ref(name) });
const arrayOf = (name: string): Property => ({ items: refTo(name) });

function objectSchema(fields: Fields): Record<string, unknown> {
  const properties: Record<string, Property> = {};
  for (const [name, type, description, extra] of fields) {
    // A `$ref` keeps `type` and `description` beside it, as the plugin prints it (readers ignore them).
    properties[name] = { type, description, ...(extra ?? {}) };
  }
  return { type: "object", properties };
}

/** Fields every post-like record (event, venue, organizer) starts with. */
function postFields(kind: string): Fields {
  return [
    ["id", "integer", `The ${kind} ID`],
    ["global_id", "string", `The ${kind} ID that identifies it across sites`],
    ["global_id_lineage", "array", `The global IDs the ${kind} comes from`, { items: { type: "string" } }],
    ["author", "integer", `The ID of the ${kind} author`],
    ["status", "string", `The ${kind} post status`],
    ["date", "string", `The ${kind} publication date in the site time zone`],
    ["date_utc", "string", `The ${kind} publication date in UTC`],
    ["modified", "string", `The ${kind} last modification date in the site time zone`],
    ["modified_utc", "string", `The ${kind} last modification date in UTC`],
    ["url", "string", `The URL of the ${kind} page`]
  ];
}

const IMAGE_SIZE: Fields = [
  ["width", "integer", "The width of the image size in pixels"],
  ["height", "integer", "The height of the image size in pixels"],
  ["mime-type", "string", "The MIME type of the image size"],
  ["url", "string", "The URL of the image size", { format: "uri" }]
];

const COST_DETAILS: Fields = [
  ["currency_symbol", "string", "The currency symbol written with the cost"],
  ["currency_position", "string", "Whether the currency symbol precedes or follows the value", { enum: ["prefix", "postfix"] }],
  ["values", "array", "The numeric values of the cost", { items: { type: "integer" } }]
];

const TERM: Fields = [
  ["id", "integer", "The term ID"],
  ["name", "string", "The term name"],
  ["slug", "string", "The term slug"],
  ["taxonomy", "string", "The taxonomy of the term"],
  ["description", "string", "The term description"],
  ["parent", "integer", "The ID of the parent term (0 for none)"],
  ["count", "integer", "The number of published events the term is assigned to"],
  ["url", "string", "The URL of the term archive page"],
  ["urls", "object", "The REST URLs of the term (self), of its collection and of its parent (up)"]
];

const IMAGE: Fields = [
  ["url", "string", "The URL of the full-size image", { format: "uri" }],
  ["id", "integer", "The image ID"],
  ["extension", "string", "The image file extension"],
  ["width", "integer", "The image width in pixels"],
  ["height", "integer", "The image height in pixels"],
  ["sizes", "array", "The sizes the image is available in", arrayOf("ImageSize")]
];

const DATE_DETAILS: Fields = [
  ["year", "integer", "The year"],
  ["month", "integer", "The month"],
  ["day", "integer", "The day of the month"],
  ["hour", "integer", "The hour"],
  ["minutes", "integer", "The minutes"],
  ["seconds", "integer", "The seconds"]
];

const EVENT: Fields = [
  ...postFields("event"),
  ["rest_url", "string", "The REST URL of the event"],
  ["title", "string", "The event title"],
  ["description", "string", "The event description"],
  ["excerpt", "string", "The event excerpt"],
  ["slug", "string", "The event slug"],
  ["image", "object", "The event featured image, if any", refTo("Image")],
  ["all_day", "boolean", "Whether the event lasts the whole day"],
  ["start_date", "string", "The event start date in the event time zone"],
  ["start_date_details", "array", "The components of the start date", arrayOf("DateDetails")],
  ["end_date", "string", "The event end date in the event time zone"],
  ["end_date_details", "array", "The components of the end date", arrayOf("DateDetails")],
  ["utc_start_date", "string", "The event start date in UTC"],
  ["utc_start_date_details", "array", "The components of the UTC start date", arrayOf("DateDetails")],
  ["utc_end_date", "string", "The event end date in UTC"],
  ["utc_end_date_details", "array", "The components of the UTC end date", arrayOf("DateDetails")],
  ["timezone", "string", "The event time zone"],
  ["timezone_abbr", "string", "The abbreviation of the event time zone at the start date"],
  ["cost", "string", "The event cost with its currency symbol"],
  ["cost_details", "array", "The details of the event cost", arrayOf("CostDetails")],
  ["website", "string", "The event website URL"],
  ["show_map", "boolean", "Whether the event shows a map"],
  ["show_map_link", "boolean", "Whether the event shows a map link"],
  ["hide_from_listings", "boolean", "Whether the event is hidden from the listings"],
  ["sticky", "boolean", "Whether the event is pinned in the calendar views"],
  ["featured", "boolean", "Whether the event is featured"],
  ["ticketed", "boolean", "Whether the event has tickets"],
  ["categories", "array", "The event categories", arrayOf("Term")],
  ["tags", "array", "The event tags", arrayOf("Term")],
  ["venue", "object", "The event venue", refTo("Venue")],
  ["organizer", "array", "The event organizers", arrayOf("Organizer")]
];

const VENUE: Fields = [
  ...postFields("venue"),
  ["venue", "string", "The venue name"],
  ["description", "string", "The venue description"],
  ["excerpt", "string", "The venue excerpt"],
  ["slug", "string", "The venue slug"],
  ["image", "object", "The venue featured image, if any", refTo("Image")],
  ["address", "string", "The venue street address"],
  ["city", "string", "The venue city"],
  ["country", "string", "The venue country"],
  ["province", "string", "The venue province"],
  ["state", "string", "The venue state"],
  ["zip", "string", "The venue postal code"],
  ["phone", "string", "The venue phone number"],
  ["website", "string", "The venue website URL"],
  ["stateprovince", "string", "The venue state or province"],
  ["geo_lat", "number", "The venue latitude", { format: "double" }],
  ["geo_lng", "number", "The venue longitude", { format: "double" }],
  ["show_map", "boolean", "Whether events at the venue show a map"],
  ["show_map_link", "boolean", "Whether events at the venue show a map link"]
];

const ORGANIZER: Fields = [
  ...postFields("organizer"),
  ["organizer", "string", "The organizer name"],
  ["description", "string", "The organizer description"],
  ["excerpt", "string", "The organizer excerpt"],
  ["slug", "string", "The organizer slug"],
  ["image", "object", "The organizer featured image, if any", refTo("Image")],
  ["phone", "string", "The organizer phone number"],
  ["website", "string", "The organizer website URL"],
  ["email", "string", "The organizer email address"]
];

/** The components, in the document's order. */
export function componentSchemas(): Record<string, unknown> {
  return {
    ImageSize: objectSchema(IMAGE_SIZE),
    CostDetails: objectSchema(COST_DETAILS),
    Term: objectSchema(TERM),
    Image: objectSchema(IMAGE),
    DateDetails: objectSchema(DATE_DETAILS),
    Event: objectSchema(EVENT),
    Venue: objectSchema(VENUE),
    Organizer: objectSchema(ORGANIZER)
  };
}

/** The component each resource's routes answer with. */
export const RESOURCE_COMPONENTS: Readonly<Record<string, string>> = {
  events: "Event",
  venues: "Venue",
  organizers: "Organizer",
  categories: "Term",
  tags: "Term"
};

export const componentRef = ref;
