export * from './phone.device.ts';
export * from './phone.screenshot.ts';
export * from './phone.status.ts';
export * from './phone.uitree.ts';
