// A throwaway PostgreSQL cluster for the benches (bench/postgres.mjs, bench/search.mjs): Debian's
// postgresql binaries, initdb in a temp folder (as the postgres user when run as root), a free port
// on 127.0.0.1, fsync and synchronous_commit on (the defaults). Cleanups are pushed onto the
// caller's list.

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

function pgBin() {
  const c = [];
  const cfg = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (cfg.status === 0) c.push(cfg.stdout.trim());
  try {
    for (const v of fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))) c.push(path.join('/usr/lib/postgresql', v, 'bin'));
  } catch {
    // not Debian's layout
  }
  return c.find((d) => fs.existsSync(path.join(d, 'initdb')));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export async function startCluster(cleanups) {
  const bin = pgBin();
  if (!bin) throw new Error("PostgreSQL not found: install Debian's postgresql package, or pass --url postgres://...");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-pgbench-cluster-'));
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot
    ? { uid: Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout), gid: Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout) }
    : undefined;
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  const wrap = (cmd, args) => (asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
  const data = path.join(dir, 'data');
  const [ic, ia] = wrap(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const init = spawnSync(ic, ia, { encoding: 'utf8', cwd: dir });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  // Durable like the embedded engine: fsync and synchronous_commit stay on (the defaults).
  const [pc, pa] = wrap(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200']);
  const child = spawn(pc, pa, { cwd: dir, stdio: 'ignore' });
  cleanups.push(() => {
    // The postmaster's own pid: runuser does not pass signals on.
    let pids = [child.pid];
    try {
      pids = [Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]), child.pid];
    } catch {
      // not started
    }
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // gone
      }
    }
  });
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client({ connectionString: admin });
    try {
      await c.connect();
      await c.end();
      break;
    } catch (err) {
      await c.end().catch(() => undefined);
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return admin;
}

let dbCount = 0;
export async function createDatabase(adminUrl) {
  const name = `ap_bench_${process.pid}_${++dbCount}`;
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
