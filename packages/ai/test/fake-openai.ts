import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown> } };
}

export type Reply = { content: string } | { status: number } | { delayMs: number; content: string };

/**
 * A local server that speaks the OpenAI chat-completions protocol: every request is recorded and answered with the
 * next scripted reply (the last one repeats).
 */
export async function fakeOpenAi(replies: Reply[] | ((req: ChatRequest) => Reply)) {
  const requests: ChatRequest[] = [];
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const parsed = JSON.parse(body) as ChatRequest;
    requests.push(parsed);
    const reply = typeof replies === 'function' ? replies(parsed) : (replies[requests.length - 1] ?? replies.at(-1)!);
    if ('status' in reply) {
      res
        .writeHead(reply.status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'upstream broke', type: 'server_error' } }));
      return;
    }
    // unref: a slow answer still pending must not keep the test process alive after its test ends
    if ('delayMs' in reply) await new Promise((r) => setTimeout(r, reply.delayMs).unref());
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: parsed.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply.content } }],
        usage: { prompt_tokens: 120, completion_tokens: 80, total_tokens: 200 },
      }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A valid recipe as a model would send it. */
export function sampleRecipe(over: Record<string, unknown> = {}) {
  return {
    title: 'Гречка с грибами',
    english_title: 'Buckwheat with mushrooms',
    reason: 'Использует грибы, которые скоро испортятся.',
    meal_type: 'dinner',
    servings: 2,
    prep_minutes: 10,
    cook_minutes: 25,
    calories_per_serving: 420,
    protein_per_serving: 14,
    fat_per_serving: 12,
    carbs_per_serving: 60,
    ingredients: [
      { name: 'Гречневая крупа', quantity: 160, unit: 'g' },
      { name: 'Шампиньоны', quantity: 300, unit: 'g' },
      { name: 'Драконий фрукт из Атлантиды', quantity: 1, unit: 'piece' },
    ],
    steps: ['Отварите гречку.', 'Обжарьте грибы и смешайте.'],
    uses_pantry: ['Шампиньоны'],
    ...over,
  };
}
