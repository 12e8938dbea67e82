/** Group control: one person's input on many phones, each finding its own element (setup and navigation only). */
export * from './group.messages.ts';
export { checkGroupRules, checkIntent, cannotAdd, allowedPackages, GROUP_ALLOWLIST, GROUP_DENYLIST, PLAY_STORE, type RuleVerdict } from './group.rules.ts';
export { readScreen, sameScreen, signatureOf, SAME_SCREEN_OVERLAP, type ScreenRead } from './group.screen.ts';
export { selectorAt, type LeaderTarget } from './group.selector.ts';
export { actOnPhone, type GroupPhone } from './group.act.ts';
