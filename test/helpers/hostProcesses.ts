// Real processes around a ledger host, for the end-to-end tests of a file's host and a PostgreSQL
// ledger's (ledgerHost.test.ts, postgresHost.test.ts): a script run to its end, writer processes
// (hostWriter.cjs) that queue tasks as fast as they can until their stdin closes, the pid an owner
// file names, and the standby a running host has connected.

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HostConnection, type HostClientOptions } from '../../src/core/host/client';
import { cleanEnv, ROOT } from './stdioServer';

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node script ...args` with `env` (used as given) in `cwd`, stdin closed; resolves once it exits. */
export function runNode(script: string, args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export interface Writer {
  child: ChildProcess;
  /** Each acknowledged write (NAME-i) with how long its call took, ms. */
  acks: Map<string, number>;
  stderr: () => string;
  exited: Promise<number | null>;
}

const writers: ChildProcess[] = [];

/**
 * test/helpers/hostWriter.cjs on ledger `db` (or the PostgreSQL ledger its `env` names): queues
 * tasks NAME-i in `project`, printing each acknowledged one, until its stdin closes.
 */
export function startWriter(db: string, name: string, project: string, env: Record<string, string>): Writer {
  const child = spawn(process.execPath, [path.join(ROOT, 'test', 'helpers', 'hostWriter.cjs'), db, name, project], {
    env: cleanEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  writers.push(child);
  const acks = new Map<string, number>();
  let buffer = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffer += d.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) {
      const m = /^ack (\S+) (\d+)$/.exec(line);
      if (m) acks.set(m[1]!, Number(m[2]));
    }
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, acks, stderr: () => stderr, exited };
}

/** Kills the writers still running (a failed test's, before its temp folders go: they would start hosts again). */
export function killWriters(): void {
  for (const child of writers.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
}

/** The pid an owner file (host.pid, standby.pid) names, if any. */
export function ownerPid(file: string): number | undefined {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

/** The standby connected to the running host, asked from this process without starting a host. */
export async function connectedStandby(options: Omit<HostClientOptions, 'start' | 'reachTimeoutMs'>): Promise<number | undefined> {
  const connection = new HostConnection({ ...options, start: false, reachTimeoutMs: 1_000 });
  try {
    return (await connection.status()).standby ?? undefined;
  } catch {
    return undefined;
  } finally {
    await connection.close();
  }
}
