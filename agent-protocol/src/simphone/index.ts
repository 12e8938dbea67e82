export { SimulatedPhoneUi, type SimTap, type SimulatedPhoneUiOptions } from './simphone.device.ts';
export { simulatedFixtures, type SimulatedFixture } from './simphone.fixtures.list.ts';
export { INSTAGRAM, TIKTOK, TIKTOK_TRILL } from './simphone.screens.ts';
