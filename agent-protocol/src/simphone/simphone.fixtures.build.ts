#!/usr/bin/env -S node --import tsx
/**
 * Writes `simphone.fixtures.ts`: the UI trees of real phones the simulator serves, copied from
 * `test/fixtures/real/` into a module, so the compiled simulator (the demo farm in the image, which has no test
 * files) carries them. Run after changing a fixture: `tsx src/simphone/simphone.fixtures.build.ts`; a test fails
 * while the module and the files differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { simulatedFixtures } from './simphone.fixtures.list.ts';

const dir = fileURLToPath(new URL('../../test/fixtures/real/', import.meta.url));
const entries = simulatedFixtures.map((name) => `  ${JSON.stringify(name)}: ${JSON.stringify(readFileSync(`${dir}${name}`, 'utf8'))},`);
writeFileSync(
  fileURLToPath(new URL('./simphone.fixtures.ts', import.meta.url)),
  `// Written by simphone.fixtures.build.ts from test/fixtures/real/ (each tree names its source and licence); do not edit.\nexport const fixtureXml: Record<string, string> = {\n${entries.join('\n')}\n};\n`,
);
