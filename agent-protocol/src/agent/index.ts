/** The reference agent's parts a program embeds: a farm host, a backend over any phone, the state folder. */
export { AGENT_VERSION, FarmHost, type FarmHostOptions } from './host.ts';
export { simulateLife } from './host.sim.ts';
export { DeviceBackend, type DeviceBackendOptions } from './device-backend.ts';
export { AgentState, defaultStateDir, type Credential } from './state.ts';
export { MediaError, MediaFetcher, MAX_MEDIA_BYTES, type MediaFetcherOptions } from './media.ts';
export { beating, type Beating, type BeatClock } from './beating.ts';
