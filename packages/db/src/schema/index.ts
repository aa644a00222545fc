export * from './reference.ts';
export * from './users.ts';
export * from './catalog.ts';
export * from './personal.ts';
export * from './recognition.ts';
export { MEAL_TYPES, JOB_STATUSES, RECIPE_SOURCES } from './columns.ts';
