// Real databases for the data-filtering tests, started by the test on loopback in a
// temporary directory and removed afterwards: PostgreSQL (Debian's server, run as the
// postgres user), MariaDB (Debian's mariadb-server), SQLite (sql.js). A server whose
// binaries are missing is reported with the reason, never skipped silently.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../loopback.js';

export interface Database {
  name: 'postgresql' | 'mysql' | 'sqlite';
  /** Runs a statement (no result); `params` bind the driver's placeholders ($1 or ?). */
  exec(sql: string, params?: unknown[]): Promise<void>;
  /** Runs a query; the `id` column of every row. */
  ids(sql: string): Promise<number[]>;
  close(): Promise<void>;
}

async function until(what: string, ms: number, ok: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await ok().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`${what} did not start within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const v = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  const bin = v && join(root, v, 'bin');
  return bin && existsSync(join(bin, 'initdb')) ? bin : undefined;
}

export async function startPostgres(): Promise<Database> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'regolith-pg-'));
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  const asPg = (cmd: string, args: string[]) => execFileSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { stdio: 'pipe' });
  asPg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  asPg('pg_ctl', ['-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`, 'start']);
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await until('PostgreSQL', 15000, async () => (await client.connect(), true));
  return {
    name: 'postgresql',
    exec: async (sql, params) => void (await client.query(sql, params as unknown[])),
    ids: async (sql) => (await client.query(sql)).rows.map((r: { id: number }) => Number(r.id)),
    close: async () => {
      await client.end().catch(() => {});
      try {
        asPg('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export function mariadbInstalled(): boolean {
  return existsSync('/usr/sbin/mariadbd') && existsSync('/usr/bin/mariadb-install-db');
}

export async function startMariaDB(): Promise<Database> {
  if (!mariadbInstalled()) throw new Error('MariaDB is not installed (apt-get install mariadb-server)');
  const dir = mkdtempSync(join(tmpdir(), 'regolith-maria-'));
  const data = join(dir, 'data');
  execFileSync('mariadb-install-db', ['--no-defaults', '--user=root', `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db'], { stdio: 'pipe' });
  const port = await freePort();
  const server: ChildProcess = spawn(
    '/usr/sbin/mariadbd',
    ['--no-defaults', '--user=root', `--datadir=${data}`, `--socket=${join(dir, 'sock')}`, `--port=${port}`, '--bind-address=127.0.0.1', '--skip-grant-tables', '--skip-log-bin', '--innodb-buffer-pool-size=16M', `--pid-file=${join(dir, 'pid')}`],
    { stdio: 'ignore' },
  );
  const mysql = await import('mysql2/promise');
  let conn: Awaited<ReturnType<typeof mysql.createConnection>> | undefined;
  await until('MariaDB', 30000, async () => {
    conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
    return true;
  });
  await conn!.query('CREATE DATABASE t');
  await conn!.query('USE t');
  return {
    name: 'mysql',
    exec: async (sql, params) => void (await conn!.query(sql, params)),
    ids: async (sql) => ((await conn!.query(sql))[0] as { id: number }[]).map((r) => Number(r.id)),
    close: async () => {
      await conn?.end().catch(() => {});
      server.kill('SIGKILL');
      await new Promise((r) => server.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startSQLite(): Promise<Database> {
  const { default: initSqlJs } = await import('sql.js');
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  return {
    name: 'sqlite',
    exec: async (sql, params) => void db.run(sql, params as never),
    ids: async (sql) => {
      const r = db.exec(sql)[0];
      return r ? r.values.map((row) => Number(row[0])) : [];
    },
    close: async () => db.close(),
  };
}
