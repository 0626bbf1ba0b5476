/**
 * A TEC-type source's custom fields as an import keeps them (lib/imports/tec-fields.ts, C69: custom fields everywhere their record goes): the values
 * read from `custom_fields`, the keys made from labels, the site's text fields of the same label reused.
 */
import { keyFromLabel, metaOfTexts, planTextFields, sourceFieldTexts } from "../../lib/imports/tec-fields";

describe("a source's custom fields", () => {
  test("label → text read from custom_fields; the plugin's escaping undone in labels; none when it answers []", () => {
    expect(sourceFieldTexts({ custom_fields: { "Stage &amp; room": "Club", Capacity: 120, Empty: "", " ": "x" } })).toEqual([
      { label: "Stage & room", text: "Club" }, { label: "Capacity", text: "120" }
    ]);
    expect(sourceFieldTexts({ custom_fields: [] })).toEqual([]);
    expect(sourceFieldTexts({})).toEqual([]);
  });

  test("keys from labels: ASCII, starting with a letter, at most 40 characters", () => {
    expect(keyFromLabel("Âge & rating")).toBe("age_rating");
    expect(keyFromLabel("2nd day")).toBe("nd_day");
    expect(keyFromLabel("★")).toBe("field");
    expect(keyFromLabel("x".repeat(60))).toHaveLength(40);
  });

  test("a text field of the label (in any language) is reused; a taken key gets a suffix; a long value makes a textarea", () => {
    const defs = [
      { key: "rating", label: { en: "Rating", fr: "Âge" }, type: "text" },
      { key: "stage", label: "Stage", type: "choice" }
    ];
    const plan = planTextFields(defs, [
      { label: "Âge", text: "12+" }, { label: "Stage", text: "Main" }, { label: "Notes", text: "y".repeat(1001) }, { label: "Notes", text: "short" }
    ]);
    expect([...plan.keys]).toEqual([["Âge", "rating"], ["Stage", "stage_2"], ["Notes", "notes"]]);
    expect(plan.create).toEqual([{ key: "stage_2", label: "Stage", type: "text" }, { key: "notes", label: "Notes", type: "textarea" }]);
    expect(metaOfTexts([{ label: "Âge", text: "12+" }, { label: "Unknown", text: "z" }], plan.keys)).toEqual({ rating: "12+" });
    expect(metaOfTexts([], plan.keys)).toBeUndefined();
  });
});
