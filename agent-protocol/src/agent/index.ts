/**
 * The per-phone agent's parts a program embeds: a backend over any phone, the state folder, media, the heartbeat.
 * A farm host is `@farm/agent-protocol/host`.
 */
export { DeviceBackend, type DeviceBackendOptions } from './device-backend.ts';
export { AgentState, defaultStateDir, type Credential } from './state.ts';
export { MediaError, MediaFetcher, MAX_MEDIA_BYTES, type MediaFetcherOptions } from './media.ts';
export { beating, type Beating, type BeatClock } from './beating.ts';
