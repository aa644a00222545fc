import http from 'node:http';

/**
 * Opens N SSE streams (one per job id read from stdin as JSON) and reports when each stream's second event arrived.
 * Prints `ready` once every stream has its first event, then one JSON line mapping each id to its arrival time.
 */
const { url, token, ids } = JSON.parse(
  await new Promise<string>((resolve) => {
    let input = '';
    process.stdin.on('data', (d) => (input += d));
    process.stdin.on('end', () => resolve(input));
  }),
) as { url: string; token: string; ids: string[] };

const DATA = Buffer.from('data:');
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
let first = 0;
const second: Record<string, number> = {};
let seconds = 0;
// Streams open a few hundred at a time: a run failed with ECONNRESET while all 10,000 connects were in flight, far
// more than a server's accept queue holds (511 by default).
const OPENING = 256;
let opened = 0;
const open = () => {
  if (opened === ids.length) return;
  const id = ids[opened++]!;
  http
    .get(url.replace('{id}', id), { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      open();
      let events = 0;
      // Events are counted by their lines starting `data:`, found in the raw bytes: decoding every chunk and matching a
      // regex made this one process for 10,000 streams pause for garbage collection mid-burst, which the figures then
      // counted as delivery time.
      res.on('data', (chunk: Buffer) => {
        let count = 0;
        for (let at = chunk.indexOf(DATA); at >= 0; at = chunk.indexOf(DATA, at + DATA.length))
          if (at === 0 || chunk[at - 1] === 10) count++;
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
    })
    .on('error', (err) => {
      console.error(err.message);
      process.exit(1);
    });
};
for (let i = 0; i < OPENING; i++) open();
