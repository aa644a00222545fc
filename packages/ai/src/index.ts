export * from './provider.ts';
export * from './offline.ts';
