export * from './queues.ts';
export * from './worker-loop.ts';
export * from './worker-runtime.ts';
export * from './recognition-job.ts';
