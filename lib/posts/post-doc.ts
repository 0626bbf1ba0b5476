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
