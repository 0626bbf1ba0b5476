/**
 * Organizers (docs/records.md#venues-and-organizers, #organizer-fields): a linked-post kind with phone, website and e-mail. Everything
 * shared with venues is in mixins/linked-post.mixin.ts (the actions) and domain/linked/ (the reads and writes).
 */
import type { ServiceSchema } from "moleculer";
import { LinkedPostMixin } from "../mixins/linked-post.mixin";
import { ORGANIZER } from "../lib/linked/kinds";


const OrganizersService: ServiceSchema = {
  name: "organizers",
  mixins: [LinkedPostMixin(ORGANIZER)]
};

export default OrganizersService;
