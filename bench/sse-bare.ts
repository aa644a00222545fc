import http from 'node:http';
import postgres from 'postgres';

/**
 * The baseline of the SSE benchmark: plain node:http holding the same streams, one LISTEN connection, and a fan-out
 * of each notification to every socket.
 */
const sql = postgres(process.env.DATABASE_URL!, { max: 1 });
const sockets = new Set<http.ServerResponse>();
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(`event: status\nid: 1\ndata: {"status":"queued"}\n\n`);
  sockets.add(res);
  req.on('close', () => sockets.delete(res));
});
await sql.listen('bench_bare', (payload) => {
  for (const res of sockets) res.write(`event: status\nid: 2\ndata: ${payload}\n\n`);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('bare ready'));
