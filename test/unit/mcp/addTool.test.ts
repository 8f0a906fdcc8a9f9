// Adding a tool is one place: its toolset's descriptor (src/mcp/tools/<toolset>/index.ts). A
// throwaway tool added to the progress descriptor, and nowhere else, is listed by a real MCP
// Client's tools/list, answers a call, and appears in the README's tool table as generated, while
// the README as committed lists exactly the shipped descriptors' tools.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import type { ToolDefinition } from '../../../src/mcp/toolRegistry';
import { toolSuccess } from '../../../src/mcp/toolResult';
import { toolsTable } from '../../../src/mcp/toolsTable';
import { toolNamesOf, TOOLSETS, type ToolsetCatalog } from '../../../src/mcp/toolsets';
import { connectInMemory } from '../../helpers/inMemoryServer';
import { tempDir, useTempDirs } from '../../helpers/tmp';

const ROOT = path.resolve(__dirname, '..', '..', '..');

const echoInput = z.object({ note: z.string().min(1).max(100).describe('Any short text.') });

const echoNote: ToolDefinition = {
  name: 'echo_note',
  title: 'Echo a note',
  description: 'Answer with the note given. A throwaway tool that only this test serves.',
  input: echoInput,
  output: z.object({ note: z.string(), echoed: z.boolean() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args) {
    const { note } = echoInput.parse(args);
    return toolSuccess(`Echoed: ${note}`, { note, echoed: true });
  },
};

/** The shipped catalog with one tool more in the progress toolset's descriptor: the one place. */
const withEcho: ToolsetCatalog = {
  ...TOOLSETS,
  progress: { ...TOOLSETS.progress, tools: (services) => [...TOOLSETS.progress.tools(services), echoNote] },
};

describe('adding a tool through its toolset descriptor', () => {
  useTempDirs();

  it('serves the added tool to a real client: listed by tools/list with its schema, and callable', async () => {
    const c = await connectInMemory({ dir: tempDir(), toolsets: ['progress'], catalog: withEcho });
    try {
      const { tools } = await c.client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        [...toolNamesOf('progress'), 'echo_note'],
      );
      const listed = tools.find((t) => t.name === 'echo_note')!;
      assert.equal(listed.title, 'Echo a note');
      assert.deepEqual(listed.inputSchema.required, ['note']);
      assert.equal(listed.annotations?.readOnlyHint, true);
      const result = await c.client.callTool({ name: 'echo_note', arguments: { note: 'hello' } });
      assert.deepEqual(result.structuredContent, { note: 'hello', echoed: true });
      // The rest of the toolset is untouched by the addition.
      const logged = await c.client.callTool({ name: 'log_progress', arguments: { projectId: 'demo', title: 'Step', content: 'Did a step.' } });
      assert.equal(logged.isError, undefined);
    } finally {
      await c.close();
    }
  });

  it('lists the added tool in the generated README table, which the committed README then lacks', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    assert.ok(readme.includes(toolsTable()), 'README tool table is stale: run node --import tsx scripts/toolsTable.mjs --write');
    const table = toolsTable(withEcho);
    const row = '| progress | `echo_note` | `note` | Answer with the note given. |';
    assert.ok(table.includes(row), table);
    assert.ok(!readme.includes(row));
    assert.ok(!readme.includes(table), 'a README generated before the tool was added is stale');
  });

  it('keeps a tool name to one toolset even when added through a descriptor', async () => {
    const clash: ToolsetCatalog = { ...withEcho, queue: { ...TOOLSETS.queue, tools: (services) => [...TOOLSETS.queue.tools(services), echoNote] } };
    await assert.rejects(connectInMemory({ dir: tempDir(), toolsets: ['progress', 'queue'], catalog: clash }), /Toolsets progress and queue both define echo_note/);
  });
});
