/**
 * How the phone's screen is read: through the UiAutomator2 server (`adb.uiserver.ts`) when the phone runs it,
 * installed and started on demand, or with `uiautomator dump` when it cannot. A phone that refuses the server is
 * read with the dump, and the server is tried again later, each time a while longer (`adb.uiserver.retry.ts`); a
 * server that dies is started again once. The reason the dump reads a phone is kept for the console. Asked which
 * reader reads the phone (the fleet's health check asks), a running server is asked its `/status`: one that does not
 * answer is reported down and stopped, so the next read starts it again.
 */
import { SERVER_APK_PATH, TEST_APK_PATH, version as uiServerVersion } from 'appium-uiautomator2-server';
import { PhoneError, type UiReaderInfo } from '../phone/phone.device.ts';
import { dumpFailure, parseUiDump } from './adb.parse.ts';
import { sleep, type PhoneLink } from './adb.link.ts';
import { UiServerRetry } from './adb.uiserver.retry.ts';
import { UI_SERVER_PACKAGE, UiServer, UiServerError, type UiServerApks } from './adb.uiserver.ts';

/** The UiAutomator2 server this host installs: the APKs the `appium-uiautomator2-server` package ships. */
export const bundledUiServer: UiServerApks = { serverApk: SERVER_APK_PATH, testApk: TEST_APK_PATH, version: uiServerVersion };

export class UiReads {
  /** The phone's UiAutomator2 server, or null when this host reads with the dump only. */
  readonly server: UiServer | null;
  /** When the UI server is tried again after it could not be installed or started. */
  readonly retry: UiServerRetry;
  /** Why the dump reads this phone (the server could not be installed or started), for the console. */
  problem: string | null = null;
  private starting: Promise<boolean> | null = null;

  constructor(private readonly link: PhoneLink) {
    const { options } = link;
    const apks = options.uiServer === undefined ? bundledUiServer : options.uiServer;
    this.retry = new UiServerRetry(options.uiServerRetryMs);
    this.server = apks
      ? new UiServer(
          {
            openTcp: async (port) => link.device.openTcp(port),
            exec: (command, timeoutMs) => link.exec(command, timeoutMs),
            spawn: async (command) => link.device.shell(command),
            upload: (localPath, remote, mode) => link.upload(localPath, remote, mode, options.pushTimeoutMs),
          },
          apks,
          options.uiServerTimeouts,
        )
      : null;
  }

  /**
   * Starts the UI server when it is not running (installing it when missing or of another version); answers whether
   * it reads the screen now. A phone that refuses it is read with the dump, and the server is tried again later.
   */
  async ready(): Promise<boolean> {
    const server = this.server;
    if (!server || this.link.closed) return false;
    if (server.ready) return true;
    if (!this.retry.due()) return false;
    if (!this.starting) {
      this.starting = (async () => {
        try {
          await server.ensure();
          this.problem = null;
          this.retry.succeeded();
          return true;
        } catch (error) {
          const refused = error instanceof PhoneError && error.code === 'unsupported';
          this.problem = error instanceof Error ? error.message : String(error);
          this.retry.failed(refused ? this.link.options.uiServerInstallRetryMs : 0);
          // A half-started instrumentation would hold the phone's UI automation and make every dump fail.
          await server.stop().catch(() => undefined);
          if (error instanceof PhoneError && error.code === 'disconnected') throw error;
          return false;
        } finally {
          this.starting = null;
        }
      })();
    }
    return this.starting;
  }

  /**
   * Which reader reads the phone. A running server is asked its `/status` (within its short limit) rather than
   * trusted: one that hangs or no longer listens is reported down with the reason, and stopped, so the next read (or
   * the recovery ladder's restart) starts it again.
   */
  async reader(): Promise<UiReaderInfo> {
    const server = this.server;
    if (server && (await this.ready())) {
      try {
        const version = await this.link.serverCall(() => server.status());
        // The server adds the toasts it hears (its NotificationListener) to the source as android.widget.Toast nodes.
        return { kind: 'ui-server', version: version ?? server.version, seesToasts: true };
      } catch (error) {
        this.problem = error instanceof Error ? error.message : String(error);
        await server.stop().catch(() => undefined);
        throw error instanceof PhoneError ? error : new PhoneError('command_failed', this.problem);
      }
    }
    // `uiautomator dump` walks the windows' accessibility trees; a toast is no window of the app and is not in it.
    return { kind: 'dump', version: null, seesToasts: false };
  }

  async dump(): Promise<string> {
    const server = this.server;
    if (server && (await this.ready())) {
      try {
        return await this.link.serverCall(() => server.source());
      } catch (error) {
        if (!(error instanceof UiServerError) || error.failure !== 'down') {
          // Hung or garbled: this read ends with its reason; the next one starts the server afresh.
          await server.stop().catch(() => undefined);
          throw error;
        }
      }
      // The server died (UI servers on phones do): started again once, then read.
      await server.stop().catch(() => undefined);
      try {
        await server.start();
        return await this.link.serverCall(() => server.source());
      } catch (error) {
        await server.stop().catch(() => undefined);
        this.retry.failed();
        this.problem = error instanceof Error ? error.message : String(error);
        throw error instanceof PhoneError ? error : new PhoneError('command_failed', this.problem);
      }
    }
    return this.dumpWithRetries();
  }

  /**
   * `uiautomator dump` (the whole tree), asked again on "null root node" and "could not get idle state". Never
   * `--compressed`: it clears FLAG_INCLUDE_NOT_IMPORTANT_VIEWS (AOSP DumpCommand.java, UiAutomationShellWrapper.java;
   * see EVIDENCE.md), which drops views not important for accessibility, and Instagram's sheet containers are such
   * views: guards would lose the dialog ancestry they look in. The UI server's page source keeps them too.
   */
  async dumpWithRetries(): Promise<string> {
    const { options } = this.link;
    const file = options.dumpPath;
    // Only one UI automation client runs on a phone: the server's instrumentation is stopped before dumping.
    const stopServer = this.server ? `am force-stop ${UI_SERVER_PACKAGE}; ` : '';
    // The old file is removed first: uiautomator can fail without an exit code and leave a stale dump behind.
    const command = `${stopServer}rm -f ${file}; uiautomator dump ${file} 2>&1; cat ${file} 2>/dev/null`;
    const attempts = Math.max(1, options.dumpAttempts);
    for (let attempt = 1; ; attempt++) {
      const output = await this.link.exec(command, options.dumpTimeoutMs);
      const failure = dumpFailure(output);
      if ((failure === 'idle' || failure === 'null_root') && attempt < attempts) {
        await sleep(options.dumpRetryPauseMs);
        continue;
      }
      return parseUiDump(output);
    }
  }

  /** Lets the server go with the phone. Not awaited: on an unplugged phone the force-stop would wait out its limit. */
  stop(): void {
    void this.server?.stop().catch(() => undefined);
  }
}
