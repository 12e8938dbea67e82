/**
 * A stand-in for Appium's UiAutomator2 server (10.6.x) on a fake phone, reached through the fake adb server's
 * `tcp:6790` service. It answers the routes the host uses as the server's source registers them (`AppiumServlet`):
 * `GET /status`, `POST /session`, `POST /session/:id/appium/settings`, `GET /session/:id/source`,
 * `POST /session/:id/element`, `POST /session/:id/element/:el/click|value`, `GET /session/:id/element/:el/text`, with
 * bodies `{ sessionId, value }`, errors `{ value: { error, message, stacktrace } }` and 404 for `no such element` and
 * `invalid session id` (the W3C codes its exceptions carry). The page source is the phone's `uiautomator dump`
 * fixture rewritten the way `AccessibilityNodeInfoDumper` writes it: each element's tag is its class name
 * (`toXmlNodeName`), the root is `<hierarchy index="0" class="hierarchy" rotation width height>`, and a toast heard
 * in the last 3.5 s (`NotificationListener.TOAST_CLEAR_TIMEOUT`) is a last `android.widget.Toast` child with package
 * `com.android.settings` (`UiElementSnapshot.addToastMsg`).
 *
 * `GET /status` answers as the server's `Status` handler (appium/appium-uiautomator2-server, handler/Status.java,
 * unchanged from 10.6.2 to the pinned 10.6.6 by its changelog): a `ResponseModel` (`value`, then `sessionId`, in
 * Gson's field order) with the session id `Session.NO_ID` ("None") and a `StatusModel` `{ ready: true, message:
 * "UiAutomator2 Server is ready to accept commands", build: { version, versionCode } }` (`BuildConfigModel`; 278 is the
 * versionCode in the manifest of the pinned 10.6.6 server APK).
 *
 * How it misbehaves is set per phone: `garbage` answers bytes that are not HTTP, `hangs` accepts and never answers,
 * `crashes` ends the instrumentation at the first page source (as UI servers on phones do: GramAddict#360). `die()`
 * ends its HTTP server while the instrumentation stays: the server's Netty thread (`HttpServer.start`) can end on an
 * exception while the test method (`AppiumUiAutomator2Server.startServer`) still waits on its shutdown latch, so
 * `am instrument -w` keeps running and nothing listens on 6790.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type FakeUiServerBehaviour = 'works' | 'garbage' | 'hangs' | 'crashes';

const W3C_ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

/** What the fake server needs from its phone. */
export interface FakeUiServerPhone {
  /** The screen as `uiautomator dump` XML (with the focused field's text applied). */
  uiXml(): string;
  /** The toast shown last and when, or null. */
  toast: { text: string; at: number } | null;
  /** Whether the screen animates (never idle): the source then waits out `waitForIdleTimeout`. */
  animated: boolean;
  fieldText: string | null;
  /** Sets the focused field's text as UiObject2.setText does (`replace`: what it held goes first). */
  setValue(text: string, replace: boolean): void;
  /** Called with each element clicked (its resource-id or description). */
  onClick(element: string): void;
  /** Ends the instrumentation (the server's process dies). */
  crash(): void;
}

const escapeXml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The dump XML rewritten as the server's page source. */
export function serverSource(dumpXml: string, toast: string | null, size = { width: 1080, height: 2400 }): string {
  const body = dumpXml.replace(/^<\?xml[^>]*\?>/, '');
  let depth = 0;
  const stack: string[] = [];
  const rewritten = body.replace(/<(\/?)(node|hierarchy)\b([^>]*?)(\/?)>/g, (_match, closing: string, tag: string, attributes: string, selfClosing: string) => {
    if (tag === 'hierarchy') {
      if (closing) {
        const toastNode = toast
          ? `<android.widget.Toast index="${depth}" package="com.android.settings" class="android.widget.Toast" text="${escapeXml(toast)}" displayed="true" />`
          : '';
        return `${toastNode}</hierarchy>`;
      }
      const rotation = /rotation="(\d+)"/.exec(attributes)?.[1] ?? '0';
      return `<hierarchy index="0" class="hierarchy" rotation="${rotation}" width="${size.width}" height="${size.height}">`;
    }
    if (closing) return `</${stack.pop() ?? 'android.view.View'}>`;
    const className = /\bclass="([^"]*)"/.exec(attributes)?.[1] ?? '';
    const name =
      className
        .replace(/[$@#&]/g, '.')
        .replace(/\.+/g, '.')
        .replace(/(^\.|\.$)/g, '') || 'android.view.View';
    if (stack.length === 0) depth += 1;
    if (!selfClosing) stack.push(name);
    return `<${name}${attributes} displayed="true"${selfClosing ? ' /' : ''}>`;
  });
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n${rewritten}`;
}

export class FakeUiServer {
  private readonly http = createServer((request, response) => void this.handle(request, response));
  private session: string | null = null;
  private readonly elements = new Map<string, string>();
  readonly settings: Record<string, unknown> = {};
  /** Every request, as `METHOD path` with the session id as `:id`. */
  readonly requests: string[] = [];
  private readonly sockets = new Set<Socket>();
  running = true;

  constructor(
    private readonly phone: FakeUiServerPhone,
    readonly version: string,
    /** How it answers from now on (a test may change it while the server runs). */
    public behaviour: FakeUiServerBehaviour,
  ) {}

  /** Takes a stream the adb server opened to port 6790. */
  accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    if (this.behaviour === 'garbage') {
      socket.end('\u0000\u0007uiautomator2 says no\r\n\r\n');
      return;
    }
    if (this.behaviour === 'hangs') return;
    this.http.emit('connection', socket);
  }

  /** The HTTP server ended while the instrumentation runs on: nothing listens on the port, open streams close. */
  die(): void {
    this.stop();
  }

  /** The instrumentation ended: open streams close. */
  stop(): void {
    this.running = false;
    this.session = null;
    for (const socket of this.sockets) socket.destroy();
  }

  private send(response: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  }

  private fail(response: ServerResponse, status: number, error: string, message: string): void {
    this.send(response, status, { sessionId: this.session, value: { error, message, stacktrace: '' } });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    // The server strips the legacy "/wd/hub" prefix (ServerHandler.LEGACY_URI_PREFIX).
    const path = (request.url ?? '/').replace(/^\/wd\/hub/, '');
    const method = request.method ?? 'GET';
    this.requests.push(`${method} ${this.session ? path.replace(this.session, ':id') : path}`);
    if (method === 'GET' && path === '/status') {
      return this.send(response, 200, {
        value: { ready: true, message: 'UiAutomator2 Server is ready to accept commands', build: { version: this.version, versionCode: 278 } },
        sessionId: 'None',
      });
    }
    if (method === 'POST' && path === '/session') {
      this.session = randomUUID();
      return this.send(response, 200, { sessionId: this.session, value: { sessionId: this.session, capabilities: {} } });
    }
    const match = /^\/session\/([^/]+)(\/.*)$/.exec(path);
    if (!match || match[1] !== this.session) return this.fail(response, 404, 'invalid session id', 'A session is either terminated or not started');
    const route = match[2] as string;
    if (method === 'POST' && route === '/appium/settings') {
      Object.assign(this.settings, (body.settings ?? {}) as Record<string, unknown>);
      return this.send(response, 200, { sessionId: this.session, value: null });
    }
    if (method === 'GET' && route === '/source') {
      if (this.behaviour === 'crashes') {
        this.phone.crash();
        return;
      }
      // The default waitForIdleTimeout is 10 s (WaitForIdleTimeout.DEFAULT_VALUE); an animated screen waits it out.
      const idleWait = typeof this.settings.waitForIdleTimeout === 'number' ? this.settings.waitForIdleTimeout : 10_000;
      if (this.phone.animated && idleWait > 0) await new Promise((resolve) => setTimeout(resolve, idleWait));
      const toast = this.phone.toast && Date.now() - this.phone.toast.at <= 3500 ? this.phone.toast.text : null;
      return this.send(response, 200, { sessionId: this.session, value: serverSource(this.phone.uiXml(), toast) });
    }
    if (method === 'POST' && route === '/element') {
      const { strategy, selector } = body as { strategy?: string; selector?: string };
      const xml = this.phone.uiXml();
      const nodes = [...xml.matchAll(/<node\b[^>]*>/g)].map((item) => item[0]);
      const found = nodes.find((node) => {
        if (strategy === 'xpath' && selector === "//*[@focused='true']") return /\bfocused="true"/.test(node);
        if (strategy === 'id') return node.includes(`resource-id="${selector}"`);
        if (strategy === 'accessibility id') return node.includes(`content-desc="${selector}"`);
        return false;
      });
      if (!found) return this.fail(response, 404, 'no such element', 'An element could not be located on the page using the given search parameters.');
      const element = randomUUID();
      this.elements.set(element, /resource-id="([^"]*)"/.exec(found)?.[1] || /content-desc="([^"]*)"/.exec(found)?.[1] || '');
      return this.send(response, 200, { sessionId: this.session, value: { ELEMENT: element, [W3C_ELEMENT_KEY]: element } });
    }
    const elementRoute = /^\/element\/([^/]+)\/(click|value|text)$/.exec(route);
    const element = elementRoute ? this.elements.get(elementRoute[1] as string) : undefined;
    if (!elementRoute || element === undefined) return this.fail(response, 404, 'unknown command', `The requested resource could not be found: ${path}`);
    if (method === 'POST' && elementRoute[2] === 'click') {
      this.phone.onClick(element);
      return this.send(response, 200, { sessionId: this.session, value: null });
    }
    if (method === 'POST' && elementRoute[2] === 'value') {
      const { text: value, replace } = body as { text?: string; replace?: boolean };
      this.phone.setValue(value ?? '', replace ?? false);
      return this.send(response, 200, { sessionId: this.session, value: null });
    }
    if (method === 'GET' && elementRoute[2] === 'text') return this.send(response, 200, { sessionId: this.session, value: this.phone.fieldText ?? '' });
    return this.fail(response, 404, 'unknown command', `The requested resource could not be found: ${path}`);
  }
}
