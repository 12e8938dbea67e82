/**
 * The phone's apps as `am` and `dumpsys package` see them: which version is installed, opening one (at its launcher
 * or a named activity), opening a link in it, and stopping it. Installing and removing apps is `adb.packages.ts`.
 */
import { PhoneError } from '../phone/phone.device.ts';
import type { PhoneLink } from './adb.link.ts';
import { parseVersionName, shellQuote } from './adb.parse.ts';

export class PhoneApps {
  constructor(private readonly link: PhoneLink) {}

  async version(packageName: string): Promise<string | null> {
    if (!/^[\w.]+$/.test(packageName)) throw new PhoneError('command_failed', `"${packageName}" is not a package name.`);
    return parseVersionName(await this.link.exec(`dumpsys package ${packageName} | grep versionName`));
  }

  async launch(packageName: string, activity?: string): Promise<void> {
    const command = activity
      ? `am start -n ${shellQuote(`${packageName}/${activity}`)}`
      : `monkey -p ${shellQuote(packageName)} -c android.intent.category.LAUNCHER 1`;
    const output = await this.link.exec(command);
    if (/No activities found|monkey aborted|does not exist|Error:/i.test(output)) {
      throw new PhoneError('not_installed', `The app ${packageName} could not be opened on this phone (is it installed?).`);
    }
  }

  async openUrl(url: string, packageName?: string): Promise<void> {
    const output = await this.link.exec(`am start -a android.intent.action.VIEW -d ${shellQuote(url)}${packageName ? ` ${shellQuote(packageName)}` : ''}`);
    if (/Error:|unable to resolve/i.test(output)) throw new PhoneError('command_failed', `The phone could not open ${url}: ${output.trim().slice(0, 200)}`);
  }

  /** `am start -a ACTION [-d DATA]`: an action and its data, nothing else. */
  async startIntent(action: string, data?: string): Promise<void> {
    if (!/^[\w.]+$/.test(action)) throw new PhoneError('command_failed', `"${action}" is not an intent action.`);
    const output = await this.link.exec(`am start -a ${action}${data !== undefined ? ` -d ${shellQuote(data)}` : ''}`);
    if (/Error:|unable to resolve/i.test(output)) throw new PhoneError('command_failed', `The phone could not open ${action}: ${output.trim().slice(0, 200)}`);
  }

  async forceStop(packageName: string): Promise<void> {
    if (!/^[\w.]+$/.test(packageName)) throw new PhoneError('command_failed', `"${packageName}" is not a package name.`);
    const output = await this.link.exec(`am force-stop ${packageName}`);
    if (/Error|Exception/.test(output)) throw new PhoneError('command_failed', `The phone did not stop ${packageName}: ${output.trim().slice(0, 200)}`);
  }
}
