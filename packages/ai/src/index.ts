export * from './provider.ts';
export * from './schemas.ts';
export * from './offline.ts';
export * from './openai-provider.ts';
export * from './prompts.ts';
export * from './photos.ts';
export * from './vision.ts';
