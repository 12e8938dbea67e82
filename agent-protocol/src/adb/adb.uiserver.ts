/**
 * Appium's UiAutomator2 server on a phone: installed from the `appium-uiautomator2-server` package's two APKs,
 * started as an instrumentation kept running on a shell of its own, and spoken to over HTTP on the phone's port 6790
 * through the adb transport's `tcp:6790` service (no host port is forwarded, so none can be taken or leak).
 *
 * Routes are those the server registers in `AppiumServlet` (appium/appium-uiautomator2-server, 10.6.x): `GET /status`,
 * `POST /session` (`{ capabilities }`), `POST /session/:id/appium/settings` (`{ settings }`), `GET /session/:id/source`,
 * `POST /session/:id/element` (`{ strategy, selector }`), `POST /session/:id/element/:el/click`,
 * `POST /session/:id/element/:el/value` (`{ text, replace }`: `SendKeysToElement`, which calls UiObject2.setText, so any
 * Unicode lands without a keyboard app), `GET /session/:id/element/:el/text`. Every answer is `{ sessionId, value }`;
 * errors carry `value: { error, message }` with an HTTP error status.
 *
 * Every request has a limit: a server that hangs or answers something that is not its JSON ends the request with a
 * reason (`UiServerError`), never a wait without end.
 *
 * It is installed and started as Appium's UiAutomator2 driver does it (appium/appium-uiautomator2-driver 8.1.2,
 * lib/uiautomator2-server/core.ts at d293dd9): installed, then the package manager asked until it lists the
 * instrumentation (`adb.uiserver.install.ts`); both packages force-stopped before each start (`cleanupAutomationLeftovers`,
 * lines 481–486); `am instrument -w -e disableAnalytics true <target>` (`startInstrumentationProcess`, lines 405–433:
 * "Disable Google analytics to prevent possible fatal exception"); then `GET /status` until it answers.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { z } from 'zod';
import { PhoneError, timeLimit } from '../phone/phone.device.ts';
import {
  installedUiServerVersion,
  installUiServer,
  UI_SERVER_INSTRUMENTATION,
  UI_SERVER_PACKAGE,
  UI_SERVER_TEST_PACKAGE,
  waitForUiServerInstrumentation,
} from './adb.uiserver.install.ts';

export { UI_SERVER_INSTRUMENTATION, UI_SERVER_PACKAGE, UI_SERVER_TEST_PACKAGE } from './adb.uiserver.install.ts';
/** `ServerConfig.DEFAULT_SERVER_PORT` in the server's source. */
export const UI_SERVER_PORT = 6790;
/** The W3C element key the server answers element lookups with (`ElementConstants`). */
const W3C_ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

/**
 * Why a request to the UI server failed: `down` (nothing listens: the instrumentation died or never started),
 * `timeout` (no whole answer in time), `garbage` (an answer that is not the server's JSON), `refused` (the server
 * answered with an error of its own, e.g. no such element).
 */
export type UiServerFailure = 'down' | 'timeout' | 'garbage' | 'refused';

export class UiServerError extends PhoneError {
  constructor(
    readonly failure: UiServerFailure,
    message: string,
    /** The server's own error name (`no such element`, `invalid session id`) when it answered one. */
    readonly serverError: string | null = null,
  ) {
    super(failure === 'timeout' ? 'timeout' : 'command_failed', message);
    this.name = 'UiServerError';
  }
}

const answer = z.object({ sessionId: z.string().nullable().optional(), value: z.unknown() });
const errorValue = z.object({ error: z.string(), message: z.string().optional() });
/**
 * `GET /status` as the server's `Status` handler answers it: a `StatusModel` (`ready`, `message`, `build`: a
 * `BuildConfigModel` of `version` and `versionCode`) in an `AppiumResponse` with the session id "None".
 */
const statusValue = z.object({
  ready: z.boolean(),
  message: z.string().optional(),
  build: z.object({ version: z.string().optional(), versionCode: z.number().optional() }).optional(),
});
const elementValue = z.object({ [W3C_ELEMENT_KEY]: z.string().optional(), ELEMENT: z.string().optional() });

/** What the UI server needs from the phone's transport. */
export interface UiServerTransport {
  /** Opens the transport's `tcp:<port>` service: a stream to that port on the phone. */
  openTcp(port: number): Promise<Duplex>;
  /** Runs one shell command and answers what it printed. */
  exec(command: string, timeoutMs?: number): Promise<string>;
  /** Starts a shell command that keeps running (the instrumentation); answers its stream. */
  spawn(command: string): Promise<Duplex>;
  /** Copies a local file to the phone. */
  upload(localPath: string, remote: string, mode: number): Promise<void>;
}

export interface UiServerApks {
  /** The server APK (`appium-uiautomator2-server-v<version>.apk`). */
  serverApk: string;
  /** The instrumentation APK (`appium-uiautomator2-server-debug-androidTest.apk`). */
  testApk: string;
  /** The server's version; a phone holding another one is updated. */
  version: string;
}

export interface UiServerOptions {
  /** Limit for one HTTP request (status, settings, lookups, typing). */
  requestTimeoutMs?: number;
  /** Limit for the page source, which walks the whole tree. */
  sourceTimeoutMs?: number;
  /** How long the instrumentation has to answer `/status` once started. */
  startTimeoutMs?: number;
  /** Limit for `GET /status` when the host checks a running server (the UI reader's health). */
  statusTimeoutMs?: number;
  /** Limit for installing one APK. */
  installTimeoutMs?: number;
  /** How long the package manager has to list the instrumentation before a start. */
  instrumentationTimeoutMs?: number;
  /** Pause between two `pm list instrumentation`. */
  instrumentationPollMs?: number;
  /** Largest answer read, so a server spewing bytes cannot fill the host's memory. */
  maxAnswerBytes?: number;
}

const DEFAULTS: Required<UiServerOptions> = {
  requestTimeoutMs: 10_000,
  sourceTimeoutMs: 15_000,
  // The driver's SERVER_LAUNCH_TIMEOUT_MS.
  startTimeoutMs: 30_000,
  // A server that is up answers its status at once; one that needs longer is not reading screens either.
  statusTimeoutMs: 3_000,
  installTimeoutMs: 120_000,
  // The driver's SERVICES_LAUNCH_TIMEOUT_MS and its once-a-second poll.
  instrumentationTimeoutMs: 30_000,
  instrumentationPollMs: 1_000,
  maxAnswerBytes: 16 * 1024 * 1024,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One phone's UI server: install, start, talk, stop. */
export class UiServer {
  private readonly options: Required<UiServerOptions>;
  private session: string | null = null;
  private instrumentation: Duplex | null = null;
  /** What the instrumentation printed last before it ended (its crash reason). */
  lastWords = '';
  /** The version the running server reported. */
  version: string | null = null;
  starts = 0;

  constructor(
    private readonly transport: UiServerTransport,
    private readonly apks: UiServerApks,
    options: UiServerOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) };
  }

  /** Whether a session is open on a running instrumentation. */
  get ready(): boolean {
    return this.session !== null && this.instrumentation !== null;
  }

  /** The server version installed on the phone when both its packages are there, else null. */
  installedVersion(): Promise<string | null> {
    return installedUiServerVersion(this.transport);
  }

  /** Installs both APKs (replacing another version); see `installUiServer`. */
  install(): Promise<void> {
    return installUiServer(this.transport, this.apks, this.options);
  }

  /**
   * Installs when missing or of another version, waits until the package manager lists the instrumentation (as the
   * driver does after every install check), starts the instrumentation and opens a session.
   */
  async ensure(): Promise<void> {
    if (this.ready) return;
    const installed = await this.installedVersion();
    if (installed !== this.apks.version) await this.install();
    await waitForUiServerInstrumentation(this.transport, this.options);
    await this.start();
  }

  /**
   * Starts the instrumentation and waits for `/status` to say ready, then opens a session with the idle wait off.
   * Both packages are force-stopped first, as the driver does before each start, so no instrumentation left by an
   * earlier host (or a half-dead one of ours) holds the phone's UI automation or the port.
   */
  async start(): Promise<void> {
    this.release();
    // As in the driver, a force-stop that fails does not stop the start: the instrument command says what is wrong.
    await this.transport.exec(`am force-stop ${UI_SERVER_PACKAGE}; am force-stop ${UI_SERVER_TEST_PACKAGE}`).catch(() => undefined);
    this.starts += 1;
    this.lastWords = '';
    const stream = await this.transport.spawn(`am instrument -w -e disableAnalytics true ${UI_SERVER_INSTRUMENTATION}`);
    this.instrumentation = stream;
    stream.on('data', (chunk: Buffer | string) => {
      this.lastWords = `${this.lastWords}${chunk.toString()}`.slice(-500);
    });
    const ended = () => {
      if (this.instrumentation !== stream) return;
      this.instrumentation = null;
      this.session = null;
    };
    stream.on('end', ended);
    stream.on('close', ended);
    stream.on('error', ended);
    const deadline = Date.now() + this.options.startTimeoutMs;
    let last: unknown = null;
    for (;;) {
      if (this.instrumentation !== stream) {
        throw new PhoneError('command_failed', `The UI server stopped while starting: ${this.lastWords.trim().slice(-200) || 'no output'}.`);
      }
      try {
        const status = statusValue.parse(
          await this.call('GET', '/status', undefined, Math.min(this.options.requestTimeoutMs, Math.max(500, deadline - Date.now()))),
        );
        if (status.ready) {
          this.version = status.build?.version ?? null;
          break;
        }
      } catch (error) {
        last = error;
      }
      if (Date.now() >= deadline) {
        await this.stop();
        throw new PhoneError(
          'timeout',
          `The UI server did not start within ${this.options.startTimeoutMs} ms${last instanceof Error ? ` (${last.message})` : ''}.`,
        );
      }
      await sleep(250);
    }
    const created = answer.parse(await this.raw('POST', '/session', { capabilities: { firstMatch: [{}], alwaysMatch: {} } }, this.options.requestTimeoutMs));
    const value = z.object({ sessionId: z.string().optional() }).safeParse(created.value);
    const session = created.sessionId ?? (value.success ? value.data.sessionId : undefined);
    if (!session) throw new UiServerError('garbage', 'The UI server opened no session.');
    this.session = session;
    // Animated screens (video feeds) never go idle; with the wait at 0 the source is read as it is.
    await this.call('POST', `/session/${session}/appium/settings`, { settings: { waitForIdleTimeout: 0 } });
  }

  /** Ends the instrumentation (force-stopping its package ends it), so another UI client can connect. */
  async stop(): Promise<void> {
    const running = this.release();
    if (running) await this.transport.exec(`am force-stop ${UI_SERVER_PACKAGE}`).catch(() => undefined);
  }

  /** Lets go of the instrumentation's shell and session; answers whether one was held. */
  private release(): boolean {
    const running = this.instrumentation;
    this.instrumentation = null;
    this.session = null;
    running?.destroy();
    return running !== null;
  }

  /**
   * Asks the running server `GET /status` within the status limit: answers the version it reports when it says it
   * is ready; throws UiServerError when it is not running, does not answer in time, answers something else, or says it
   * is not ready.
   */
  async status(timeoutMs = this.options.statusTimeoutMs): Promise<string | null> {
    if (!this.instrumentation) throw new UiServerError('down', 'The UI server is not running.');
    const parsed = statusValue.safeParse(await this.call('GET', '/status', undefined, timeoutMs));
    if (!parsed.success) throw new UiServerError('garbage', 'The UI server answered GET /status with something that is not its status.');
    if (!parsed.data.ready) throw new UiServerError('down', `The UI server says it is not ready${parsed.data.message ? ` (${parsed.data.message})` : ''}.`);
    return parsed.data.build?.version ?? null;
  }

  private sessionPath(path: string): string {
    if (!this.session) throw new UiServerError('down', 'The UI server has no session (it is not running).');
    return `/session/${this.session}${path}`;
  }

  /** The screen's UI tree as the server's XML (tags named by class, toasts included as `android.widget.Toast`). */
  async source(): Promise<string> {
    const value = await this.call('GET', this.sessionPath('/source'), undefined, this.options.sourceTimeoutMs);
    // A tree cut short or not a tree at all ends the read here, with its reason, rather than in a parser.
    if (typeof value !== 'string' || !value.includes('<hierarchy') || !value.trimEnd().endsWith('</hierarchy>'))
      throw new UiServerError('garbage', 'The UI server answered a page source that is not a whole UI tree.');
    return value;
  }

  /** Finds one element; answers its id, or null when there is none. */
  async find(strategy: 'id' | 'xpath' | 'accessibility id' | '-android uiautomator', selector: string): Promise<string | null> {
    try {
      const value = elementValue.parse(await this.call('POST', this.sessionPath('/element'), { strategy, selector }));
      return value[W3C_ELEMENT_KEY] ?? value.ELEMENT ?? null;
    } catch (error) {
      if (error instanceof UiServerError && error.serverError === 'no such element') return null;
      if (error instanceof z.ZodError) throw new UiServerError('garbage', 'The UI server answered an element lookup with no element id.');
      throw error;
    }
  }

  async click(element: string): Promise<void> {
    await this.call('POST', this.sessionPath(`/element/${encodeURIComponent(element)}/click`), {});
  }

  /**
   * Sets the element's text (UiObject2.setText: any Unicode, no keyboard): replacing what it holds, or after it
   * (the server then reads what it holds, and takes text that a clear does not remove for a hint).
   */
  async setValue(element: string, text: string, replace = true): Promise<void> {
    await this.call('POST', this.sessionPath(`/element/${encodeURIComponent(element)}/value`), { text, replace });
  }

  async text(element: string): Promise<string> {
    const value = await this.call('GET', this.sessionPath(`/element/${encodeURIComponent(element)}/text`));
    if (typeof value !== 'string') throw new UiServerError('garbage', 'The UI server answered an element text that is not text.');
    return value;
  }

  /** One request; answers the `value` of a successful answer, throws UiServerError otherwise. */
  private async call(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs = this.options.requestTimeoutMs): Promise<unknown> {
    const parsed = answer.safeParse(await this.raw(method, path, body, timeoutMs));
    if (!parsed.success) throw new UiServerError('garbage', `The UI server answered ${method} ${path} with something that is not its JSON.`);
    return parsed.data.value;
  }

  /** Sends one HTTP request over a fresh `tcp:` stream and answers the parsed JSON body. */
  private async raw(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<unknown> {
    const what = `${method} ${path.replace(/\/session\/[^/]+/, '/session/…')}`;
    const stream = await this.connect(what, timeoutMs);
    const payload = body === undefined ? null : Buffer.from(JSON.stringify(body), 'utf8');
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const finish = (error: UiServerError | null, value?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stream.destroy();
        if (error) reject(error);
        else resolve(value);
      };
      const timer = setTimeout(() => finish(new UiServerError('timeout', `The UI server did not answer ${what} within ${timeoutMs} ms.`)), timeoutMs);
      const req = httpRequest({
        method,
        path,
        host: '127.0.0.1',
        headers: {
          connection: 'close',
          ...(payload ? { 'content-type': 'application/json; charset=utf-8', 'content-length': payload.length } : {}),
        },
        // The adb stream stands in for a TCP connection to the phone's port.
        createConnection: () => stream as Socket,
      });
      req.on('error', (error: Error & { code?: string }) => {
        const garbled = typeof error.code === 'string' && error.code.startsWith('HPE_');
        finish(
          new UiServerError(
            garbled ? 'garbage' : 'down',
            garbled ? `The UI server answered ${what} with something that is not HTTP.` : `The UI server's connection ended during ${what} (${error.message}).`,
          ),
        );
      });
      req.on('response', (response) => readAnswer(response, what, this.options.maxAnswerBytes, finish));
      req.end(payload ?? undefined);
    });
  }

  /** Opens a fresh `tcp:` stream to the server's port within the limit. */
  private async connect(what: string, timeoutMs: number): Promise<Duplex> {
    const opening = this.transport.openTcp(UI_SERVER_PORT);
    try {
      return await withLimit(opening, timeoutMs, what);
    } catch (error) {
      if (error instanceof UiServerError) {
        // A stream that opens after the limit is closed at once rather than left open on the phone.
        opening.then((late) => late.destroy()).catch(() => undefined);
        throw error;
      }
      throw new UiServerError('down', `The UI server does not answer on port ${UI_SERVER_PORT} (${error instanceof Error ? error.message : String(error)}).`);
    }
  }
}

/** Reads one HTTP answer of at most `maxBytes` and settles the request with its JSON body or the reason it has none. */
function readAnswer(response: IncomingMessage, what: string, maxBytes: number, finish: (error: UiServerError | null, value?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      finish(new UiServerError('garbage', `The UI server's answer to ${what} is over ${maxBytes} bytes.`));
      return;
    }
    chunks.push(chunk);
  });
  response.on('aborted', () => finish(new UiServerError('down', `The UI server's answer to ${what} was cut off.`)));
  response.on('error', () => finish(new UiServerError('down', `The UI server's answer to ${what} was cut off.`)));
  response.on('end', () => {
    if (!response.complete) return finish(new UiServerError('down', `The UI server's answer to ${what} was cut off.`));
    let json: unknown;
    try {
      json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return finish(new UiServerError('garbage', `The UI server answered ${what} with something that is not JSON.`));
    }
    const status = response.statusCode ?? 0;
    if (status >= 400) {
      const value = answer.safeParse(json);
      const error = value.success ? errorValue.safeParse(value.data.value) : null;
      const name = error?.success ? error.data.error : null;
      const message = error?.success ? (error.data.message ?? name) : null;
      return finish(new UiServerError('refused', `The UI server refused ${what}: ${(message ?? `HTTP ${status}`).split('\n')[0]?.slice(0, 200)}`, name));
    }
    finish(null, json);
  });
}

/** Rejects with a UiServerError when `work` takes longer than `ms`. */
function withLimit<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return timeLimit(work, ms, () => new UiServerError('timeout', `The UI server did not answer ${what} within ${ms} ms.`));
}
