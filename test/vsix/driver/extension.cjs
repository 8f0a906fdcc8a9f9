// The test driver of test/vsix (loaded in development mode next to the installed .vsix): calls
// the tools of the servers VS Code started through the installed extension's MCP provider, with
// VS Code's own MCP client (vscode.lm.invokeTool), as Copilot would. It reads the calls from
// $AP_DRIVER_DIR/requests.json and writes what came back to $AP_DRIVER_DIR/responses.json.
// Outside a chat, VS Code asks before running a tool that changes things: the test clicks the
// dialog's button, as a person would.

const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const EXTENSION_ID = 'agent-progress.agent-progress';

/** The tool of that name; `has` picks between servers by an input property (complete_task is in two). */
function findTool(name, has) {
  return vscode.lm.tools.find((t) => t.name.endsWith(`_${name}`) && (!has || Boolean(t.inputSchema && t.inputSchema.properties && t.inputSchema.properties[has])));
}

async function toolsReady(names, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true }).then(undefined, () => undefined);
    const missing = names.filter((n) => !findTool(n));
    if (missing.length === 0) return;
    if (Date.now() > deadline) throw new Error(`VS Code lists no tool ${missing.join(', ')} (tools: ${vscode.lm.tools.map((t) => t.name).join(', ')})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function writeJson(file, value) {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(value, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}

async function runRequests() {
  const dir = process.env.AP_DRIVER_DIR;
  if (!dir) throw new Error('AP_DRIVER_DIR is not set');
  const requests = JSON.parse(fs.readFileSync(path.join(dir, 'requests.json'), 'utf8'));
  const out = path.join(dir, 'responses.json');
  const results = [];
  try {
    // Chat activates the providers of MCP servers when it opens (onMcpCollection); outside a chat
    // the driver does the same, or VS Code would know of no Agent Progress server yet.
    await vscode.extensions.getExtension(EXTENSION_ID).activate();
    await toolsReady([...new Set(requests.map((r) => r.tool))], 90_000);
    for (const request of requests) {
      const tool = findTool(request.tool, request.has);
      try {
        const result = await vscode.lm.invokeTool(tool.name, { input: request.input, toolInvocationToken: undefined });
        const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('\n');
        results.push({ tool: tool.name, ok: true, text });
      } catch (err) {
        results.push({ tool: tool.name, ok: false, error: String(err && err.message ? err.message : err) });
      }
    }
    writeJson(out, { extensionActive: vscode.extensions.getExtension(EXTENSION_ID)?.isActive ?? false, tools: vscode.lm.tools.map((t) => t.name), results });
  } catch (err) {
    writeJson(out, { error: String(err && err.message ? err.message : err), results });
  }
}

function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('apDriver.runRequests', runRequests),
    vscode.commands.registerCommand('apDriver.openWalkthrough', () => vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#agentProgress.gettingStarted`, false)),
  );
}

module.exports = { activate };
