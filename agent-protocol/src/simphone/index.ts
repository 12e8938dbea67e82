export { SimulatedPhoneUi, type SimTap, type SimulatedPhoneUiOptions } from './simphone.device.ts';
