export * from './changes.ts';
export * from './jobs.ts';
export * from './posts.due.ts';
export * from './in-process.ts';
export * from './campaigns.due.ts';
