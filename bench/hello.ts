import Fastify from 'fastify';

/** The baseline of the API benchmark: Fastify hello-world on the same machine, in its own process. */
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
console.log('hello ready');
