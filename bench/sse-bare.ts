import http from 'node:http';
import postgres from 'postgres';

/**
 * The baseline of the SSE benchmark: plain node:http holding the same streams (`/<id>`), one LISTEN connection, and
 * each notification (an id) written to that id's socket.
 */
const sql = postgres(process.env.DATABASE_URL!, { max: 1 });
const sockets = new Map<string, http.ServerResponse>();
const server = http.createServer((req, res) => {
  const id = req.url!.slice(1);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(`event: status\nid: 1\ndata: {"status":"queued"}\n\n`);
  sockets.set(id, res);
  req.on('close', () => sockets.delete(id));
});
await sql.listen('bench_bare', (id) => {
  sockets.get(id)?.write(`event: status\nid: 2\ndata: {"id":"${id}","status":"processing"}\n\n`);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('bare ready'));
