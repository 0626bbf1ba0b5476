/**
 * Integer ids drawn from the store, and which record type owns each post id. Events, venues, organizers
 * and images draw from the `posts` sequence of their site (one id space, as WordPress posts); categories
 * and tags from `terms`; the change feed from `changes`. Ids are never reused after a delete.
 *
 * Image records live here too: posts of the shared id space, used by events, venues and organizers
 * alike, one record per URL (a unique key, so parallel writers on any node share one).
 */
export type Sequence = "posts" | "terms" | "changes";

export interface ImageRecord {
  id: number;
  url: string;
  extension: string;
}

export interface IdRegistry {
  allocate(seq: Sequence, type: string): Promise<number>;
  /** `count` post ids of `type` at once, ascending (one statement on the SQL stores). */
  allocatePosts(type: string, count: number): Promise<number[]>;
  typeOf(id: number): Promise<string | undefined>;
  /** The image record made for `url`, made now if there is none. */
  imageForUrl(url: string, extension: string): Promise<ImageRecord>;
  images(ids: number[]): Promise<ImageRecord[]>;
}
