// Loads sql.js once per process. The WASM file ships beside the bundle (dist/sql-wasm.wasm);
// from source (tests) it comes from node_modules.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import { loadVendored } from '../../vendor';
import { LedgerError } from '../../errors';

let loading: Promise<SqlJsStatic> | undefined;

function wasmCandidates(): string[] {
  const out: string[] = [];
  if (process.env.AGENT_PROGRESS_SQLJS_WASM) out.push(process.env.AGENT_PROGRESS_SQLJS_WASM);
  out.push(path.join(__dirname, 'sql-wasm.wasm'));
  try {
    out.push(require.resolve('sql.js/dist/sql-wasm.wasm'));
  } catch {
    // bundled run without node_modules: the file beside the bundle is the one
  }
  return out;
}

export function loadSqlJs(): Promise<SqlJsStatic> {
  loading ??= (async () => {
    const file = wasmCandidates().find((candidate) => fs.existsSync(candidate));
    if (!file) {
      throw new LedgerError('internal', `sql-wasm.wasm was not found beside ${__dirname}; reinstall Agent Progress`);
    }
    const wasmBinary = fs.readFileSync(file);
    return loadVendored<typeof initSqlJs>('sql.js')({ wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) as ArrayBuffer });
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
