import { ApiError } from './errors.ts';

export interface JobEvent<Job> {
  /** The event id: send it as Last-Event-ID to resume (the iterator does so itself after a drop). */
  id: string;
  job: Job;
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** Resume after this event (the states up to it are not sent again). */
  lastEventId?: string;
  /** Reconnections in a row without a new event before giving up (a server restart drops open streams). */
  reconnects?: number;
}

const FINAL = new Set(['done', 'failed']);

/**
 * A job's states as they happen, from its server-sent event stream: the current state first, then each change, until
 * `done` or `failed`. A dropped connection is resumed with Last-Event-ID, so no state is missed or repeated.
 */
export async function* jobEvents<Job extends { status: string }>(
  fetchFn: (request: Request) => Promise<Response>,
  url: URL,
  options: StreamOptions = {},
): AsyncGenerator<JobEvent<Job>, void, undefined> {
  let lastEventId = options.lastEventId;
  let failures = 0;
  const limit = options.reconnects ?? 5;
  for (;;) {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    let response: Response | undefined;
    try {
      response = await fetchFn(new Request(url, { headers, signal: options.signal }));
      if (response.ok && response.body) {
        for await (const event of serverSentEvents(response.body)) {
          if (event.event !== 'status') continue;
          failures = 0;
          lastEventId = event.id;
          const job = JSON.parse(event.data) as Job;
          yield { id: event.id, job };
          if (FINAL.has(job.status)) return;
        }
      } else if (response.status !== 503) throw await ApiError.from(response);
    } catch (error) {
      if (options.signal?.aborted || error instanceof ApiError) throw error;
      // A network error: reconnect below like after an ended stream.
    }
    if (++failures > limit) throw new Error(`the job stream ${url} kept ending before the job finished`);
    const retryAfter = Number(response?.headers.get('retry-after'));
    await delay(retryAfter > 0 ? retryAfter * 1000 : Math.min(500 * 2 ** failures, 8000), options.signal);
  }
}

interface ServerSentEvent {
  event: string;
  id: string;
  data: string;
}

/** The events of a text/event-stream body (the WHATWG format: blocks of `field: value` lines). */
async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  let buffer = '';
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: ServerSentEvent = { event: 'message', id: '', data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line === '' || line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'data') data.push(text);
          else if (field === 'event') event.event = text;
          else if (field === 'id') event.id = text;
        }
        if (data.length > 0) yield { ...event, data: data.join('\n') };
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function delay(ms: number, signal: AbortSignal | undefined) {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
