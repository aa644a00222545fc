import http from 'node:http';

/**
 * Opens N SSE streams (one per job id read from stdin as JSON) and reports, for each stream, when its second event
 * arrived. Prints `ready` once every stream has its first event, then one JSON line with the arrival times.
 */
const { url, token, ids } = JSON.parse(await new Promise<string>((resolve) => {
  let input = '';
  process.stdin.on('data', (d) => (input += d));
  process.stdin.on('end', () => resolve(input));
})) as { url: string; token: string; ids: string[] };

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
let first = 0;
const second: number[] = [];
for (const id of ids) {
  const path = url.includes('{id}') ? url.replace('{id}', id) : url;
  http.get(path, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
    let events = 0;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const count = (chunk.match(/^(event|data):/gm) ?? []).filter((l) => l.startsWith('data')).length;
      for (let i = 0; i < count; i++) {
        events++;
        if (events === 1 && ++first === ids.length) console.log('ready');
        if (events === 2) {
          second.push(Date.now());
          if (second.length === ids.length) {
            console.log(JSON.stringify({ second }));
            process.exit(0);
          }
        }
      }
    });
  }).on('error', (err) => {
    console.error(err.message);
    process.exit(1);
  });
}
