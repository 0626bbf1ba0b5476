/**
 * What runs SQL: a dialect and its two calls, statements written with `?` placeholders. The driver
 * (store/sql/driver.ts) and a transaction inside it are runners; so is anything that only reads and
 * writes through one (store/sql/upkeep.ts), which needs no more of the driver than this.
 */
export type Dialect = "sqlite" | "postgres";
/** A value bound to a `?`; a list only where PostgreSQL takes an array (`= ANY(?::bigint[])`: node-postgres sends it as one). */
export type Param = string | number | bigint | null | Buffer | readonly unknown[];

export interface SqlRunner {
  readonly dialect: Dialect;
  all<T = Record<string, unknown>>(sql: string, params?: Param[]): Promise<T[]>;
  run(sql: string, params?: Param[]): Promise<number>;
}
