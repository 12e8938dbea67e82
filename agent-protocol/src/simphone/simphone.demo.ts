#!/usr/bin/env -S node --import tsx
/**
 * Runs a shipped recipe on the simulated phone and writes a screenshot after every step, to see what a routine
 * does without a phone: `tsx src/simphone/simphone.demo.ts --platform instagram --routine create_post --out DIR`.
 * Time is simulated, so a 10-minute warm-up runs in a moment. `--size 720x1440` plays it on a phone of that screen.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { manualClock, seededRandom } from '../recipes/recipe.pacing.ts';
import { resolveRecipe } from '../recipes/recipe.resolver.ts';
import { runRecipe, type StepProgress } from '../recipes/recipe.runner.ts';
import { recipePlatforms, routineTypes, type RecipePlatform, type RoutineType } from '../recipes/recipe.schema.ts';
import { SimulatedPhoneUi } from './simphone.device.ts';

const { values } = parseArgs({
  options: {
    platform: { type: 'string', default: 'instagram' },
    routine: { type: 'string', default: 'create_post' },
    out: { type: 'string' },
    challenge: { type: 'string' },
    seed: { type: 'string', default: '1' },
    size: { type: 'string', default: '1080x2400' },
  },
});
if (!recipePlatforms.includes(values.platform as RecipePlatform) || !routineTypes.includes(values.routine as RoutineType)) {
  console.error(`--platform is one of ${recipePlatforms.join(', ')}; --routine one of ${routineTypes.join(', ')}`);
  process.exit(2);
}
const resolved = resolveRecipe({ platform: values.platform as RecipePlatform, routine: values.routine as RoutineType });
if (!resolved) {
  console.error(`No recipe for ${values.routine} on ${values.platform}.`);
  process.exit(1);
}
const size = /^(\d{3,4})x(\d{3,4})$/.exec(values.size);
if (!size) {
  console.error('--size is WIDTHxHEIGHT in pixels (720x1440, 1080x2400, 1440x3200)');
  process.exit(2);
}
const phone = new SimulatedPhoneUi({
  width: Number(size[1]),
  height: Number(size[2]),
  ...(values.challenge === 'login' || values.challenge === 'blocked' ? { challenge: values.challenge } : {}),
});
if (values.out) mkdirSync(values.out, { recursive: true });
const shots: Promise<void>[] = [];
let shot = 0;
const onProgress = (event: StepProgress) => {
  phone.showStep(event);
  if (event.status === 'started') return;
  console.log(
    `${event.percent.toString().padStart(3)}%  ${event.path.padEnd(8)} ${event.status.padEnd(8)} ${event.label}${event.detail ? ` (${event.detail})` : ''}${event.point ? ` at ${event.point.x},${event.point.y}` : ''}`,
  );
  if (values.out && event.status === 'done' && !['repeat', 'when', 'pause'].includes(event.do)) {
    const file = join(values.out, `${String(++shot).padStart(3, '0')}-${event.path}.jpg`);
    shots.push(phone.screenshot({ maxSide: 720 }).then((image) => writeFileSync(file, image.data)));
  }
};
// The post's picture as the agent's fetcher would leave it: a run copies only files it was given from its media folder.
const mediaDir = mkdtempSync(join(tmpdir(), 'farm-demo-media-'));
const picture = join(mediaDir, 'pier.jpg');
writeFileSync(picture, Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
const result = await runRecipe(
  phone,
  resolved.recipe,
  {
    caption: 'Golden hour at the pier',
    hashtags: ['#sunset', '#travel'],
    media: [picture],
    keywords: ['sunset beach'],
    accounts: ['maya_k'],
    count: 2,
    minutes: 2,
  },
  // From a known start, as the agent runs it: the app force-stopped and launched, its version checked.
  { clock: manualClock(Date.now()), random: seededRandom(Number(values.seed)), onProgress, preflight: {}, media: { files: [picture], dir: mediaDir } },
);
await Promise.all(shots);
console.log(`${result.status}: ${JSON.stringify(result.actions)}${result.failure ? ` ${result.failure.code}: ${result.failure.message}` : ''}`);
