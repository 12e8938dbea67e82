export { AdbHost, createAdbClient, type AdbDeviceState, type AdbHostDevice, type AdbHostEvent, type AdbHostOptions } from './adb.host.ts';
export { AdbPhone, type AdbPhoneOptions, type PhoneHealth } from './adb.phone.ts';
export { AdbLiveScreen, type LiveScreenOptions } from './adb.live.ts';
