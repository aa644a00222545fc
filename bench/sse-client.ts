import http from 'node:http';

/**
 * Opens N SSE streams (one per job id read from stdin as JSON) and reports when each stream's second event arrived.
 * Prints `ready` once every stream has its first event, then one JSON line mapping each id to its arrival time.
 */
const { url, token, ids } = JSON.parse(await new Promise<string>((resolve) => {
  let input = '';
  process.stdin.on('data', (d) => (input += d));
  process.stdin.on('end', () => resolve(input));
})) as { url: string; token: string; ids: string[] };

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
let first = 0;
const second: Record<string, number> = {};
let seconds = 0;
for (const id of ids) {
  http.get(url.replace('{id}', id), { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
    let events = 0;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const count = (chunk.match(/^data:/gm) ?? []).length;
      for (let i = 0; i < count; i++) {
        events++;
        if (events === 1 && ++first === ids.length) console.log('ready');
        if (events === 2) {
          second[id] = Date.now();
          if (++seconds === ids.length) {
            // Exit only once the (large) line is flushed: stdout to a pipe is asynchronous.
            process.stdout.write(`${JSON.stringify({ second })}\n`, () => process.exit(0));
          }
        }
      }
    });
  }).on('error', (err) => {
    console.error(err.message);
    process.exit(1);
  });
}
