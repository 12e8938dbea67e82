/** Every REST shape of the console, as zod schemas: the one definition that api validates with and web types with. */
export * from './messages.ts';
export * from './sentences.ts';
export * from './common.ts';
export * from './auth.contract.ts';
export * from './fleet.contract.ts';
export * from './health.contract.ts';
export * from './campaigns.contract.ts';
export * from './content.contract.ts';
export * from './answers.contract.ts';
export * from './events.contract.ts';
export * from './agents.contract.ts';
export { failureCodes, failureLabels, type FailureCode } from '@farm/agent-protocol/failures';
export * from './security.contract.ts';
export * from './manager.contract.ts';
export * from './live.contract.ts';
export * from './groups.contract.ts';
export * from './apps.contract.ts';
export * from './captures.contract.ts';
