// A real loopback HTTP server speaking the OpenAI chat-completions protocol, for summaries.
// It records every request (headers included, to check where the key goes) and can be told to fail.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  headers: http.IncomingHttpHeaders;
  body: { model?: string; messages?: { role: string; content: string }[]; max_tokens?: number; temperature?: number };
}

export interface ChatServer {
  baseUrl: string;
  requests: ChatRequest[];
  /** What the next responses are: a summary text, or an HTTP error status. */
  reply: { text: string } | { status: number; message: string };
  close(): Promise<void>;
}

export async function startChatServer(): Promise<ChatServer> {
  const state: ChatServer = {
    baseUrl: '',
    requests: [],
    reply: { text: 'Summarised by the loopback model.' },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: ChatRequest['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'];
      } catch {
        // recorded as empty
      }
      state.requests.push({ headers: req.headers, body });
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const reply = state.reply;
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: reply.message, type: 'test' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${state.requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model ?? 'test',
          choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
