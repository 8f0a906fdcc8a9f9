// A separate OS process that queues tasks through the built product (dist/core.js's Services, so
// through the ledger host like a server) as fast as it can, printing "ack NAME-i MS" once each
// write is acknowledged, with how long the call took. Stops when its stdin closes.
// Usage: node hostWriter.cjs DB NAME PROJECT
// With AGENT_PROGRESS_DATABASE_URL set, it writes to that PostgreSQL ledger (through its host) instead of DB.

const path = require('node:path');
const { Services } = require(path.join(__dirname, '..', '..', 'dist', 'core.js'));

const [db, name, project] = process.argv.slice(2);
const say = (line) => process.stderr.write(`${line}\n`);
const logger = { debug() {}, info() {}, warn: say, error: say, addSecret() {}, once() {} };

let stop = false;
process.stdin.on('end', () => (stop = true));
process.stdin.on('data', () => undefined);

async function main() {
  const databaseUrl = process.env.AGENT_PROGRESS_DATABASE_URL;
  const services = new Services({
    config: { dbPath: db, ...(databaseUrl ? { databaseUrl } : {}), openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
    logger,
  });
  const queue = await services.queue();
  process.stdout.write('ready\n');
  for (let i = 0; !stop; i++) {
    const started = Date.now();
    await queue.addTask({ projectId: project, instructions: `${name}-${i}` }, { kind: 'operator', name });
    process.stdout.write(`ack ${name}-${i} ${Date.now() - started}\n`);
  }
  await services.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    say(`hostWriter: ${err && err.stack ? err.stack : String(err)}`);
    process.exit(1);
  },
);
