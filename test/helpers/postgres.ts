/**
 * PostgreSQL databases for tests: each run creates a database of its own on the local server
 * (PG_ADMIN_URL, default the machine's trust-auth server at 127.0.0.1:5432) and drops it afterwards.
 */
import { Client } from "pg";

export const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Whether the server answers (tests that need it say so when it does not). */
export async function postgresReachable(): Promise<boolean> {
  const client = new Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A new, empty database (C collation, UTF-8 character classes; `icuLocale`: that ICU locale's collation
 * instead; `ctype`: that LC_CTYPE instead) and the URL to reach it.
 */
export async function createTestDatabase(label = "t", o: { icuLocale?: string; ctype?: string } = {}): Promise<TestDatabase> {
  const name = `calendar_${label}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`.toLowerCase();
  const locale = o.icuLocale ? `LOCALE 'C.UTF-8' LOCALE_PROVIDER icu ICU_LOCALE '${o.icuLocale}'` : `LC_COLLATE 'C' LC_CTYPE '${o.ctype ?? "C.UTF-8"}'`;
  await admin(c => c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' ${locale}`));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(c => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined)
  };
}
