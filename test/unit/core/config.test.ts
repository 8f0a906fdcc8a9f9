import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CONFIG_FILE_NAME, defaultDbPath, loadConfig } from '../../../src/core/config';
import { LedgerError } from '../../../src/core/errors';
import { tempDir, useTempDirs } from '../../helpers/tmp';

describe('configuration (Agent Progress Tracker specification, README "Tools")', () => {
  useTempDirs();

  it('defaults to ~/.agent-progress-mcp/data.db and gpt-4o-mini with no key', () => {
    const cwd = tempDir();
    const config = loadConfig({ env: {}, cwd });
    assert.equal(config.dbPath, path.join(os.homedir(), '.agent-progress-mcp', 'data.db'));
    assert.equal(config.dbPath, defaultDbPath());
    assert.equal(config.openai.model, 'gpt-4o-mini');
    assert.equal(config.openai.baseUrl, 'https://api.openai.com/v1');
    assert.equal(config.openai.apiKey, undefined);
    assert.equal(config.logLevel, 'info');
  });

  it('reads a trusted config file with ${VAR} expansion, paths relative to the file', () => {
    const cwd = tempDir();
    fs.writeFileSync(
      path.join(cwd, CONFIG_FILE_NAME),
      JSON.stringify({ dbPath: './data/progress.db', openai: { apiKey: '${MY_KEY}', baseUrl: 'http://127.0.0.1:9/v1', model: 'small' }, logging: { level: 'debug' } }),
    );
    const config = loadConfig({ env: { MY_KEY: 'sk-from-env-var' }, cwd, configFile: CONFIG_FILE_NAME });
    assert.equal(config.dbPath, path.join(cwd, 'data', 'progress.db'));
    assert.equal(config.openai.apiKey, 'sk-from-env-var');
    assert.equal(config.openai.model, 'small');
    assert.equal(config.openai.baseUrl, 'http://127.0.0.1:9/v1');
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.configFile, path.join(cwd, CONFIG_FILE_NAME));
  });

  it('lets environment variables win over the file', () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, CONFIG_FILE_NAME), JSON.stringify({ dbPath: './a.db', openai: { apiKey: 'file-key', model: 'file-model' } }));
    const config = loadConfig({
      env: { AGENT_PROGRESS_DB_PATH: path.join(cwd, 'env.db'), OPENAI_API_KEY: 'env-key', AGENT_PROGRESS_MODEL: 'env-model', AGENT_PROGRESS_LOG_LEVEL: 'error' },
      cwd,
    });
    assert.equal(config.dbPath, path.join(cwd, 'env.db'));
    assert.equal(config.openai.apiKey, 'env-key');
    assert.equal(config.openai.model, 'env-model');
    assert.equal(config.logLevel, 'error');
  });

  it('treats an unset ${VAR} as missing and says so', () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, CONFIG_FILE_NAME), JSON.stringify({ openai: { apiKey: '${NOPE_NOT_SET}' }, extra: 1 }));
    const config = loadConfig({ env: {}, cwd, configFile: path.join(cwd, CONFIG_FILE_NAME) });
    assert.equal(config.openai.apiKey, undefined);
    assert.ok(config.warnings.some((w) => w.includes('NOPE_NOT_SET')));
    assert.ok(config.warnings.some((w) => w.includes('unknown key "extra"')));
  });

  it('refuses a config file that is not JSON, naming it', () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, CONFIG_FILE_NAME), '{ dbPath: oops');
    assert.throws(
      () => loadConfig({ env: {}, cwd }),
      (err: unknown) => err instanceof LedgerError && err.message.includes(CONFIG_FILE_NAME) && err.message.includes('not valid JSON'),
    );
  });

  it('refuses a ledger path with .. segments, NUL, or that is a directory', () => {
    const cwd = tempDir();
    assert.throws(() => loadConfig({ env: { AGENT_PROGRESS_DB_PATH: '../../etc/data.db' }, cwd }), /must not contain '\.\.' segments/);
    assert.throws(() => loadConfig({ env: { AGENT_PROGRESS_DB_PATH: 'a\0b' }, cwd }), /NUL/);
    assert.throws(() => loadConfig({ env: { AGENT_PROGRESS_DB_PATH: cwd }, cwd }), /points at a directory/);
  });

  it('expands ~ and resolves relative env paths against the working directory', () => {
    const cwd = tempDir();
    assert.equal(loadConfig({ env: { AGENT_PROGRESS_DB_PATH: '~/x/y.db' }, cwd }).dbPath, path.join(os.homedir(), 'x', 'y.db'));
    assert.equal(loadConfig({ env: { AGENT_PROGRESS_DB_PATH: 'rel/y.db' }, cwd }).dbPath, path.join(cwd, 'rel', 'y.db'));
  });

  it("takes only the model and log level from a working folder's file, and the rest from the user's own", () => {
    const cwd = tempDir();
    const xdg = tempDir();
    fs.mkdirSync(path.join(xdg, 'agent-progress'));
    fs.writeFileSync(path.join(xdg, 'agent-progress', 'config.json'), JSON.stringify({ dbPath: '~/mine.db', openai: { apiKey: '${K}', model: 'user-model' } }));
    fs.writeFileSync(
      path.join(cwd, CONFIG_FILE_NAME),
      JSON.stringify({
        dbPath: './theirs.db',
        databaseUrl: 'postgres://x@evil/db',
        openai: { apiKey: 'theirs', baseUrl: 'http://evil/v1', model: 'repo-model' },
        logging: { level: '${LEVEL}' },
      }),
    );
    const config = loadConfig({ env: { XDG_CONFIG_HOME: xdg, K: 'sk-user', LEVEL: 'debug' }, cwd });
    assert.equal(config.dbPath, path.join(os.homedir(), 'mine.db'));
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.openai.apiKey, 'sk-user');
    assert.equal(config.openai.baseUrl, 'https://api.openai.com/v1');
    assert.equal(config.openai.model, 'repo-model');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.warnings.filter((w) => w.includes('dbPath, databaseUrl, openai.apiKey, openai.baseUrl')).length, 1);
    assert.ok(config.warnings.some((w) => w.includes('logging.level refers to an environment variable')));
  });

  it('refuses a base URL that is not http(s)', () => {
    assert.throws(() => loadConfig({ env: { OPENAI_BASE_URL: 'file:///etc/passwd' }, cwd: tempDir() }), /must be an http\(s\) URL/);
  });
});
