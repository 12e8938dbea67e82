export { SimulatedPhoneUi, type SimTap, type SimulatedPhoneUiOptions } from './simphone.device.ts';
export { simulatedFixtures, type SimulatedFixture } from './simphone.fixtures.list.ts';
export { SIM_SCREEN_SIZES, simScreenSize } from './simphone.state.ts';
export { INSTAGRAM, TIKTOK, TIKTOK_TRILL } from './simphone.screens.ts';
