/** The farm host a program embeds: the PC that speaks for every phone on its USB (or for simulated ones). */
export { AGENT_VERSION, FarmHost, type FarmHostOptions } from './host.ts';
export { simulateLife } from './host.sim.ts';
