/**
 * The bus events about sites (docs/sites.md): broadcast by the platform service, heard by every node's
 * services that keep per-site work (the webhooks' passes), so a site made on one node is known on all at
 * once, not at their next read of the list of sites.
 */

/** A site was made: `{ site: <id> }`. */
export const SITE_CREATED = "sites.created";
