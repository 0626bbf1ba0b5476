/** Fields every post record (event, venue, organizer) stores. */
export interface PostDoc {
  _id: number;
  author: number;
  status: string;
  prior_status?: string;
  date: string;
  date_utc: string;
  modified: string;
  modified_utc: string;
  slug: string;
  post_password?: string;
  lang?: string;
  [field: string]: unknown;
}

/**
 * The longest post password, in characters: WordPress's `wp_posts.post_password` is 255 wide. It also
 * keeps the events' window index (which holds the password, docs/lists.md#counting-a-list) within what
 * PostgreSQL's btree takes an entry: a password of thousands of characters answered 500 there.
 */
export const POST_PASSWORD_MAX = 255;
