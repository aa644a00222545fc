export * from './energy.ts';
export * from './language.ts';
export * from './dates.ts';
export * from './barcode.ts';
export * from './nutrition.ts';
export * from './food-import.ts';
export * from './menu-fitting.ts';
export * from './shopping.ts';
