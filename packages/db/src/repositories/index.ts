export * from './sessions.ts';
export * from './profiles.ts';
export * from './reference.ts';
export * from './catalog.ts';
export * from './diary.ts';
export * from './pantry.ts';
export * from './saved-recipes.ts';
