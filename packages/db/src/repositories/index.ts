export * from './sessions.ts';
export * from './profiles.ts';
export * from './reference.ts';
