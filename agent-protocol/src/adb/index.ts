export { AdbHost, createAdbClient, type AdbDeviceState, type AdbHostDevice, type AdbHostEvent, type AdbHostOptions } from './adb.host.ts';
export { AdbPhone, type AdbPhoneOptions, type PhoneHealth } from './adb.phone.ts';
export { AdbLiveScreen, type LiveScreenOptions } from './adb.live.ts';
export {
  ensureScrcpyServer,
  SCRCPY_SERVER_SHA256,
  bundledScrcpyServer,
  SCRCPY_VERSION,
  ScrcpyStreamError,
  type ScrcpyPacket,
  type ScrcpyStreamKind,
  type ScrcpyVideoHeader,
  type ScreenPoint,
} from './adb.scrcpy.ts';
export { asLiveVideoSession, ScrcpySession, type ScrcpyPhone, type ScrcpySessionOptions, type ScrcpyWatcher } from './adb.scrcpy.session.ts';
