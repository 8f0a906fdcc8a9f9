import { openLedger } from './src/core/storage/openLedger';
import { createLogger } from './src/core/log';
import * as fs from 'node:fs';
(async () => {
  const dir = fs.mkdtempSync('/tmp/ap/t-');
  const file = dir + '/data.db';
  const logger = createLogger({ level: 'debug' });
  let l = await openLedger({ file, logger });
  const t0 = Date.now();
  for (let i = 0; i < 200; i++) {
    await l.progress.insertEntry({ id: 'id' + i, projectId: 'p', title: `Refactored authentication ${i}`, content: 'JWT tokens were added to the auth module and sessions were removed ' + i, createdAt: new Date(1700000000000 + i).toISOString(), tags: i % 2 ? ['auth', 'Refactor'] : ['auth'], agentId: null });
  }
  console.log('200 inserts ms', Date.now() - t0, await l.stats());
  console.log(await l.progress.searchEntries({ projectId: 'p', query: 'AUTHENT', limit: 2 }));
  console.log(await l.progress.searchEntries({ projectId: 'p', tags: ['refactor'], limit: 1 }));
  console.log(await l.progress.searchEntries({ projectId: 'p', text: 'jwt sessions', limit: 2 }));
  console.log(await l.progress.searchEntries({ projectId: 'p', text: 'jwt -removed', limit: 2 }));
  console.log(await l.progress.searchEntries({ projectId: 'p', text: 'auth*', limit: 1 }));
  console.log(await l.progress.listProjects(), await l.progress.listTags('p'));
  await l.compact();
  console.log(await l.stats());
  await l.progress.insertEntry({ id: 'after', projectId: 'q', title: 'x', content: 'y', createdAt: new Date().toISOString(), tags: [], agentId: 'a' });
  await l.close();
  l = await openLedger({ file, logger });
  console.log(await l.stats(), (await l.progress.listProjects()).length, await l.progress.getEntry('q', 'after'));
  console.log(fs.readdirSync(dir).map(f => f + ' ' + (fs.statSync(dir + '/' + f).mode & 0o777).toString(8)), (fs.statSync(dir).mode & 0o777).toString(8));
  await l.close();
})().catch(e => { console.error('FAIL', e); process.exit(1); });
