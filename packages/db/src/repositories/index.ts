export * from './sessions.ts';
export * from './profiles.ts';
export * from './reference.ts';
export * from './catalog.ts';
