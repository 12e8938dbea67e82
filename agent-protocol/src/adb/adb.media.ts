/**
 * Files onto the phone and into its apps: media copied from the farm host's media folder (and nothing outside it),
 * registered with the media store and looked up there, shared to an app as the share sheet would, and the files an
 * install needs (`adb.packages.ts`). A new way of handing an app its media lands here.
 */
import { realpath, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { PhoneError, type PushMediaOptions, type ShareIntent } from '../phone/phone.device.ts';
import { liesInside } from '../recipes/recipe.media.ts';
import type { PhoneFacts } from './adb.facts.ts';
import { sleep, type PhoneLink } from './adb.link.ts';
import { mediaStorePath, mediaUri, parseContentRows, shellQuote } from './adb.parse.ts';

export class PhoneMedia {
  constructor(
    private readonly link: PhoneLink,
    private readonly facts: PhoneFacts,
  ) {}

  /**
   * Sends the app what the share sheet would: ACTION_SEND with the file's media store URI. The file must be indexed
   * (`scan`): apps open `content://media/…` URIs with their own media permission, and a `file://` URI is
   * refused by apps targeting Android 7+. `am` builds one URI extra (`--eu`) and has no list of URIs, so
   * ACTION_SEND_MULTIPLE (a carousel) cannot be sent from the shell: it is refused as unsupported with that reason.
   */
  async share(intent: ShareIntent): Promise<void> {
    // No `$`: the name reaches the phone's shell unquoted, where `$…` expands (the recipe schema refuses it too).
    if (!/^[\w.]+$/.test(intent.package) || !/^[\w.]+$/.test(intent.activity))
      throw new PhoneError('command_failed', `"${intent.package}/${intent.activity}" is not an activity.`);
    if (!/^[\w.+-]+\/[\w.+*-]+$/.test(intent.mime)) throw new PhoneError('command_failed', `"${intent.mime}" is not a MIME type.`);
    if (intent.files.length === 0) throw new PhoneError('command_failed', 'A share needs at least one file.');
    if (intent.files.length > 1) {
      throw new PhoneError(
        'unsupported',
        "Sharing several files at once (ACTION_SEND_MULTIPLE) cannot be sent through adb: am's intent arguments carry one URI extra (--eu) and no list of URIs.",
      );
    }
    const [file] = intent.files as [string];
    const uri = (await this.uris([file]))[0];
    if (!uri) throw new PhoneError('command_failed', `${file} is not in the phone's media store (push and scan it first).`);
    const text = intent.text === undefined ? '' : ` --es android.intent.extra.TEXT ${shellQuote(intent.text)}`;
    const output = await this.link.exec(
      `am start -a android.intent.action.SEND -t ${shellQuote(intent.mime)} --eu android.intent.extra.STREAM ${uri}${text} -n ${intent.package}/${intent.activity}`,
    );
    if (/Error|Exception/.test(output)) throw new PhoneError('command_failed', `The phone did not open the share: ${output.trim().slice(0, 200)}`);
  }

  /** The media store URIs of these files, in order (undefined for one not indexed). */
  private async uris(paths: string[]): Promise<(string | undefined)[]> {
    for (const path of paths) {
      if (!/^\/[\w./ @+-]+$/.test(path)) throw new PhoneError('command_failed', `"${path}" is not a path this host shares.`);
    }
    const where = paths.map((path) => `'${mediaStorePath(path)}'`).join(',');
    const rows = parseContentRows(
      await this.link.exec(`content query --uri content://media/external/file --projection _id:_data:mime_type --where "_data IN (${where})"`),
    );
    return paths.map((path) => {
      const row = rows.find((item) => item._data === mediaStorePath(path));
      return row?._id ? mediaUri(row._id, row.mime_type ?? '') : undefined;
    });
  }

  async scan(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    const { options } = this.link;
    const sdk = (await this.facts.knownOrRead()).sdk;
    if (sdk >= 29) {
      // MediaProvider's scan_volume (Android 10+) scans the whole volume before it answers.
      const output = await this.link.exec('content call --method scan_volume --uri content://media --arg external_primary', options.mediaIndexTimeoutMs);
      if (/Exception|Error/.test(output)) throw new PhoneError('command_failed', `The phone did not scan its media: ${output.trim().slice(0, 200)}`);
    } else {
      for (const path of paths) {
        const output = await this.link.exec(`am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d ${shellQuote(`file://${path}`)}`);
        if (!/Broadcast completed/.test(output))
          throw new PhoneError('command_failed', `The media scanner did not take ${path}: ${output.trim().slice(0, 200)}`);
      }
    }
    // The broadcast returns before the scanner has run: the files are looked up until they are there.
    const deadline = Date.now() + options.mediaIndexTimeoutMs;
    for (;;) {
      const uris = await this.uris(paths);
      const missing = paths.filter((_, index) => uris[index] === undefined);
      if (missing.length === 0) return;
      if (Date.now() >= deadline) throw new PhoneError('timeout', `The phone's media store did not index ${missing.join(', ')} in time.`);
      await sleep(250);
    }
  }

  async push(localPath: string, options: PushMediaOptions = {}): Promise<string> {
    const { mediaDir, mediaRoot, pushTimeoutMs } = this.link.options;
    const dir = (options.remoteDir ?? mediaDir).replace(/\/+$/, '');
    const remote = `${dir}/${options.name ?? basename(localPath)}`;
    let source = localPath;
    if (mediaRoot !== undefined) {
      // A second wall behind the run's own check: nothing of the host outside its media folder reaches a phone.
      const [root, real] = await Promise.all([realpath(mediaRoot).catch(() => null), realpath(localPath).catch(() => null)]);
      if (!root || !real || !liesInside(root, real))
        throw new PhoneError('unsupported', `Only files of the farm host's media folder are copied to a phone; ${basename(localPath)} is not one.`);
      source = real;
    }
    const file = await stat(source).catch(() => null);
    if (!file?.isFile()) throw new PhoneError('command_failed', `The media file ${localPath} is not on this farm host.`);
    await this.link.upload(source, remote, 0o644, pushTimeoutMs);
    await this.scan([remote]);
    return remote;
  }

  /** Copies a local file onto the phone (an app to install: adb.packages.ts), readable by the shell user. */
  pushFile(localPath: string, remote: string): Promise<void> {
    return this.link.upload(localPath, remote, 0o644, this.link.options.pushTimeoutMs);
  }
}
