export * from './energy.ts';
export * from './language.ts';
export * from './dates.ts';
