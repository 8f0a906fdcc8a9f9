// Task files for bulk import (CLI create-tasks-bulk, the editor's import command): a JSON array,
// JSON lines, or CSV with a header. Columns typeId (or type) and instructions are the task's;
// every other column is a template variable. Pure: text in, rows out.

import { invalidArgument } from '../errors';

export interface TaskRow {
  typeId?: string;
  instructions?: string;
  variables?: Record<string, string>;
}

/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF line ends. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      field = '';
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
    } else field += c;
  }
  if (quoted) throw invalidArgument('The CSV file ends inside a quoted field: close the quote');
  row.push(field);
  if (row.some((f) => f !== '')) rows.push(row);
  return rows;
}

function fromCsv(text: string): unknown[] {
  const [header, ...rows] = parseCsv(text.replace(/^\ufeff/, ''));
  if (!header) return [];
  const names = header.map((h) => h.trim());
  return rows.map((cells) => {
    const row: TaskRow = {};
    const variables: Record<string, string> = {};
    names.forEach((name, i) => {
      if (i >= cells.length) return; // a short row leaves the rest out (missing, not empty)
      const value = cells[i]!;
      if (name === 'typeId' || name === 'type') {
        if (value !== '') row.typeId = value;
      } else if (name === 'instructions') {
        if (value !== '') row.instructions = value;
      } else if (name !== '') variables[name] = value;
    });
    if (Object.keys(variables).length > 0) row.variables = variables;
    return row;
  });
}

/** Rows of a task file, by its name's extension or, failing that, its first character. */
export function parseTaskFile(text: string, fileName: string): unknown[] {
  const trimmed = text.replace(/^\ufeff/, '').trim();
  if (trimmed === '') throw invalidArgument(`${fileName} is empty: give a JSON array of tasks, JSON lines, or CSV with a header`);
  const ext = fileName.toLowerCase().split('.').pop();
  if (ext === 'csv' || (ext !== 'json' && ext !== 'jsonl' && !/^[[{]/.test(trimmed))) return fromCsv(text);
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (err) {
      throw invalidArgument(`${fileName} is not valid JSON (${(err as Error).message})`);
    }
    if (!Array.isArray(parsed)) throw invalidArgument(`${fileName} must hold a JSON array of tasks`);
    return parsed;
  }
  return trimmed.split(/\r?\n/).flatMap((line, i) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line) as unknown];
    } catch {
      throw invalidArgument(`${fileName} line ${i + 1} is not valid JSON`);
    }
  });
}
