import { linkedJsonLd } from "../../lib/linked/json-ld";
import { ORGANIZER, VENUE } from "../../lib/linked/kinds";

describe("linkedJsonLd (docs/records.md#json-ld)", () => {
  test("Place: plain-text description, image, permalink, non-empty address parts, telephone, sameAs, geo", () => {
    expect(linkedJsonLd(VENUE, {
      venue: "Blue Room", description: "<p>Basement\nclub.</p>", image: { url: "http://i.example.org/a.jpg", id: 3, extension: "jpg" },
      url: "http://localhost:3000/venue/blue-room/", address: "Via Roma 1", city: "Rome", province: "RM", stateprovince: "RM",
      zip: "00100", country: "Italy", phone: "+39", website: "http://b.example.org", geo_lat: 41.9, geo_lng: 12.5
    })).toEqual({
      "@type": "Place", name: "Blue Room", description: "Basement club.", image: "http://i.example.org/a.jpg",
      url: "http://localhost:3000/venue/blue-room/",
      address: { "@type": "PostalAddress", streetAddress: "Via Roma 1", addressLocality: "Rome", addressRegion: "RM", postalCode: "00100", addressCountry: "Italy" },
      telephone: "+39", sameAs: "http://b.example.org", geo: { "@type": "GeoCoordinates", latitude: 41.9, longitude: 12.5 }
    });
  });

  test("Place without details: no description, address or geo; telephone and sameAs empty", () => {
    expect(linkedJsonLd(VENUE, { venue: "X", url: "u", description: "", image: false, geo_lat: 0, geo_lng: 0 }))
      .toEqual({ "@type": "Place", name: "X", url: "u", telephone: "", sameAs: "" });
    expect(linkedJsonLd(VENUE, { venue: "X", url: "u", state: "NY" }).address).toEqual({ "@type": "PostalAddress", addressRegion: "NY" });
  });

  test("the description follows the one plain-text rule (lib/text/sanitize.ts plainText), on one line", () => {
    const ld = linkedJsonLd(ORGANIZER, { organizer: "O", description: "<p>Fish &amp; Chips</p><p>Tom&#39;s <b>bar</b></p>" });
    expect(ld.description).toBe("Fish & Chips Tom's bar");
  });

  test("Person: url and sameAs are the website", () => {
    expect(linkedJsonLd(ORGANIZER, { organizer: "Jazz Club", url: "permalink", email: "a@b.org", website: "http://j.org" }))
      .toEqual({ "@type": "Person", name: "Jazz Club", url: "http://j.org", telephone: "", email: "a@b.org", sameAs: "http://j.org" });
  });
});
