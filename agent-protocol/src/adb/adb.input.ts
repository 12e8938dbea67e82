/**
 * Touches, keys and typing. Input goes through one persistent shell (`adb.shell.ts`): taps and swipes as `input`
 * commands, text typed into the focused field through the UI server when it runs (any Unicode lands), else with
 * `input text` for printable ASCII and ADB Keyboard for the rest. Emptying a field reads it first (the server's own
 * text, or the dump's focused node) so no more is deleted than it holds.
 */
import { androidKeyCodes, PhoneError, type KeyName, type Point } from '../phone/phone.device.ts';
import { focusedText, inputTextArguments, isInputTextSafe } from './adb.parse.ts';
import type { PhoneLink } from './adb.link.ts';
import { PersistentShell } from './adb.shell.ts';
import type { UiReads } from './adb.uiread.ts';

/** `input keyevent` codes the dump's typing uses to empty a field. */
const KEYCODE_MOVE_END = 123;
const KEYCODE_DEL = 67;

export class PhoneInput {
  private readonly shell: PersistentShell;

  constructor(
    private readonly link: PhoneLink,
    private readonly ui: UiReads,
  ) {
    this.shell = new PersistentShell(async () => link.device.shell('sh'), link.options.commandTimeoutMs);
  }

  /** How many input shells were opened so far (one while the phone keeps answering). */
  get shellsOpened(): number {
    return this.shell.opened;
  }

  /** Runs one input command through the persistent shell. */
  private async command(command: string): Promise<string> {
    const result = await this.link.tracked(() => this.shell.run(command));
    if (result.exitCode !== 0)
      throw new PhoneError('command_failed', `The phone refused "${command.slice(0, 80)}": ${result.output.trim().slice(0, 200) || `exit ${result.exitCode}`}`);
    return result.output;
  }

  async tap(x: number, y: number): Promise<void> {
    await this.command(`input tap ${Math.round(x)} ${Math.round(y)}`);
  }

  async longPress(x: number, y: number, durationMs: number): Promise<void> {
    const [px, py] = [Math.round(x), Math.round(y)];
    await this.command(`input swipe ${px} ${py} ${px} ${py} ${Math.round(durationMs)}`);
  }

  async swipe(from: Point, to: Point, durationMs: number): Promise<void> {
    await this.command(`input swipe ${Math.round(from.x)} ${Math.round(from.y)} ${Math.round(to.x)} ${Math.round(to.y)} ${Math.round(durationMs)}`);
  }

  async key(key: KeyName): Promise<void> {
    await this.command(`input keyevent ${androidKeyCodes[key]}`);
  }

  async text(value: string): Promise<void> {
    const server = this.ui.server;
    if (server && (await this.ui.ready())) {
      // Appended through the server, so any Unicode lands; with no focused field it goes to `input` as before.
      const field = await this.link.serverCall(() => server.find('xpath', "//*[@focused='true']"));
      if (field) {
        await this.link.serverCall(() => server.setValue(field, value, false));
        return;
      }
    }
    await this.typeWithInput(value);
  }

  /** Types with `input text` (printable ASCII, spaces as %s) or, for anything else, ADB Keyboard. */
  private async typeWithInput(value: string): Promise<void> {
    const lines = value.split('\n');
    for (const [index, line] of lines.entries()) {
      if (index > 0) await this.key('enter');
      if (line.length === 0) continue;
      if (isInputTextSafe(line)) {
        for (const argument of inputTextArguments(line)) await this.command(`input text ${argument}`);
      } else {
        // `input text` types ASCII only; emoji and accents go through the ADB Keyboard IME when it is the phone's keyboard.
        await this.requireAdbKeyboard();
        await this.command(`am broadcast -a ADB_INPUT_B64 --es msg ${Buffer.from(line, 'utf8').toString('base64')}`);
      }
    }
  }

  /** Throws PhoneError('unsupported') unless ADB Keyboard is the phone's input method. */
  private async requireAdbKeyboard(): Promise<void> {
    const keyboard = await this.link.exec('settings get secure default_input_method');
    if (!keyboard.includes('com.android.adbkeyboard/')) {
      throw new PhoneError('unsupported', "This text has characters that need the ADB Keyboard app as the phone's keyboard (input text types ASCII only).");
    }
  }

  async setText(value: string, at?: Point): Promise<string | null> {
    const server = this.ui.server;
    if (server && (await this.ui.ready())) {
      if (at) await this.tap(at.x, at.y);
      const field = await this.link.serverCall(() => server.find('xpath', "//*[@focused='true']"));
      if (!field) throw new PhoneError('command_failed', 'No field has the focus to type into.');
      await this.link.serverCall(() => server.setValue(field, value));
      return this.link.serverCall(() => server.text(field)).catch(() => null);
    }
    // The dump's fallback: input text types printable ASCII; anything else needs ADB Keyboard, checked before the
    // field is touched so a refusal leaves it as it was.
    if (value.split('\n').some((line) => !isInputTextSafe(line))) await this.requireAdbKeyboard();
    if (at) await this.tap(at.x, at.y);
    const before = focusedText(await this.ui.dumpWithRetries().catch(() => ''));
    // Emptied from its end: as many deletions as the field holds characters (a hint's length when it is empty).
    const length = before === null ? 0 : [...before].length;
    if (length > 0) {
      await this.command(`input keyevent ${KEYCODE_MOVE_END}`);
      for (let left = length; left > 0; left -= 50) {
        await this.command(`input keyevent ${Array(Math.min(50, left)).fill(KEYCODE_DEL).join(' ')}`);
      }
    }
    await this.typeWithInput(value);
    return focusedText(await this.ui.dumpWithRetries().catch(() => ''));
  }

  async wake(): Promise<void> {
    await this.key('wakeup');
  }

  close(): void {
    this.shell.close();
  }
}
