/**
 * Organizers through HTTP and the bus: the behaviour shared with venues (linked-suite.ts) and what only
 * organizers have: e-mail (not validated), no map flags, json_ld as a Person, search on e-mail and website.
 */
import { linkedSuite, useLinkedService, token, KindConfig } from "./linked-suite";
import type { Json } from "../helpers/json";

const ORGANIZER: KindConfig = {
  kind: "organizer",
  plural: "organizers",
  nameField: "organizer",
  otherPlural: "venues",
  otherNameField: "venue",
  sample: { phone: "+39 06 654321", website: "http://jazz.example.org", email: "info@jazz.example.org" },
  outputFields: ["phone", "website", "email"],
  mapFlags: false
};

const env = useLinkedService();
linkedSuite(env, ORGANIZER);

describe("organizers: what only organizers have", () => {
  const create = async (body: Record<string, unknown>) =>
    (await env.svc.request("POST", "/organizers", { as: "admin", body: { organizer: `Org ${token()}`, ...body } })).body;

  test("e-mail is any string; no map flags; venue-only parameters are ignored", async () => {
    const r = await create({ email: "not-an-email", show_map: false, address: "Via Roma 1", geo_lat: 1, geo_lng: 2 });
    expect(r.email).toBe("not-an-email");
    for (const key of ["show_map", "show_map_link", "address", "geo_lat"]) expect(r).not.toHaveProperty(key);
  });

  test("json_ld is a Person whose url is the website", async () => {
    const r = await create({ phone: "1", website: "http://o.example.org", email: "a@b.example.org", description: "Hosts." });
    expect((await env.svc.get(`/organizers/${r.id}`)).body.json_ld).toEqual({
      "@type": "Person", name: r.organizer, description: "Hosts.", url: "http://o.example.org", telephone: "1", email: "a@b.example.org", sameAs: "http://o.example.org"
    });
    const bare = await create({});
    expect((await env.svc.get(`/organizers/${bare.id}`)).body.json_ld).toEqual({ "@type": "Person", name: bare.organizer, url: "", telephone: "", email: "", sameAs: "" });
  });

  test("search looks at e-mail and website too (tested: @common.com matches two e-mails)", async () => {
    const domain = token().toLowerCase();
    const a = await create({ email: `one@${domain}.com` });
    const b = await create({ email: `two@${domain}.com` });
    const c = await create({ website: `http://${domain}.org/x` });
    const res = await env.svc.get(`/organizers?search=${encodeURIComponent(`@${domain}.com`)}`);
    expect(res.body.organizers.map((o: Json) => o.id)).toEqual([b.id, a.id]);
    const site = await env.svc.get(`/organizers?search=${domain}.org`);
    expect(site.body.organizers.map((o: Json) => o.id)).toEqual([c.id]);
  });
});
