export * from './schema.ts';
export * from './database.ts';
export * from './migrate.ts';
export * from './serialize.ts';
export { isUuid } from './ids.ts';
export { NAMED_STATEMENT } from './prepared.ts';
