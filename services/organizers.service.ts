/**
 * Organizers (docs/records.md#venues-and-organizers, #organizer-fields): a linked-post kind with phone, website and e-mail. Everything
 * shared with venues is in mixins/linked-post.mixin.ts.
 */
import type { ServiceSchema } from "moleculer";
import { LinkedPostMixin, LinkedKindSpec } from "../mixins/linked-post.mixin";
import { ORGANIZER_BLANKS } from "../lib/posts/password";

export const ORGANIZER: LinkedKindSpec = {
  kind: "organizer",
  plural: "organizers",
  postType: "tribe_organizer",
  nameField: "organizer",
  fields: [
    { name: "phone", description: "The organizer's phone number" },
    { name: "website", url: true, description: "The organizer's website (an absolute URL)" },
    { name: "email", description: "The organizer's e-mail address" }
  ],
  outputOrder: ["phone", "website", "email"],
  searchFields: ["phone", "email", "website"],
  mapFlags: false,
  geo: false,
  stateProvince: false,
  jsonLdType: "Person",
  blanks: ORGANIZER_BLANKS,
  allArgsDefaultNull: true
};

const OrganizersService: ServiceSchema = {
  name: "organizers",
  mixins: [LinkedPostMixin(ORGANIZER)]
};

export default OrganizersService;
