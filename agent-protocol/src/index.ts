export * from './messages.ts';
export { SimulatedPhone, solidPng, type SimulatorOptions } from './agent/simulator.ts';
