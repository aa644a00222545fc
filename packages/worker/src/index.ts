export * from './queues.ts';
export * from './worker-loop.ts';
export * from './runtime.ts';
export * from './recognition-job.ts';
