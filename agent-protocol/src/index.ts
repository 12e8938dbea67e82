export * from './messages.ts';
export * from './failures.ts';
export * from './work.ts';
export * from './live.ts';
export * from './fleet/fleet.messages.ts';
export { Journal, type JournalEntry, type TaskResult } from './agent/journal.ts';
export { PhoneAgent, type PhoneAgentOptions, type PhoneBackend, type WorkContext, type WorkOutcome } from './agent/phone-agent.ts';
export { SimulatedBackend, SimulatedPhone, solidPng, type SimulatorOptions } from './agent/simulator.ts';
export * from './enroll.ts';
