/**
 * A stand-in for a Socket.IO client socket: tests drive its connection, push server events by hand, read what
 * the client emitted and answer its acks.
 */
type Listener = (...args: never[]) => void;
type AnyListener = (event: string, ...args: unknown[]) => void;
type Answer = (payload: unknown) => unknown;

export interface Emitted {
  event: string;
  payload: unknown;
}

export class FakeSocket {
  connected = false;
  active = false;
  recovered = false;
  connectCalls = 0;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly anyListeners = new Set<AnyListener>();
  private readonly answers = new Map<string, Answer>();
  /** What the client sent, in order. */
  readonly emitted: Emitted[] = [];

  on(event: string, listener: Listener): this {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener);
    this.listeners.set(event, set);
    return this;
  }

  off(event: string, listener: Listener): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  onAny(listener: AnyListener): this {
    this.anyListeners.add(listener);
    return this;
  }

  offAny(listener: AnyListener): this {
    this.anyListeners.delete(listener);
    return this;
  }

  connect(): this {
    this.connectCalls += 1;
    this.active = true;
    return this;
  }

  disconnect(): this {
    this.active = false;
    this.connected = false;
    return this;
  }

  /** The client sends an event; an ack, when it passes one, hears the answer set for that event (if any). */
  emit(event: string, ...args: unknown[]): this {
    const ack = args.at(-1);
    const payload = typeof ack === 'function' ? args.slice(0, -1)[0] : args[0];
    this.emitted.push({ event, payload });
    const answer = this.answers.get(event);
    if (typeof ack === 'function' && answer) (ack as (value: unknown) => void)(answer(payload));
    return this;
  }

  /** How the server answers the acks of this client event from now on. */
  answer(event: string, reply: Answer): this {
    this.answers.set(event, reply);
    return this;
  }

  /** The payloads the client sent under this event name. */
  sent(event: string): unknown[] {
    return this.emitted.filter((entry) => entry.event === event).map((entry) => entry.payload);
  }

  /** How many listeners are bound, over every event name (and onAny). */
  get listenerCount(): number {
    let count = this.anyListeners.size;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  private fire(event: string, ...args: unknown[]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) (listener as (...values: unknown[]) => void)(...args);
  }

  /** The server pushes an event (with an ack when it asks for one): onAny listeners hear it, and listeners bound to its name. */
  push(event: string, ...args: unknown[]): void {
    for (const listener of [...this.anyListeners]) listener(event, ...args);
    this.fire(event, ...args);
  }

  serverConnects({ recovered = false } = {}): void {
    this.connected = true;
    this.active = true;
    this.recovered = recovered;
    this.fire('connect');
  }

  /** The transport dropped (Socket.IO keeps reconnecting) or, with 'io server disconnect', the server closed it. */
  drops(reason = 'transport close'): void {
    this.connected = false;
    if (reason === 'io server disconnect') this.active = false;
    this.fire('disconnect', reason);
  }

  /** A handshake failed; a middleware refusal leaves the socket inactive (Socket.IO does not retry it). */
  refused(message: string, { byMiddleware = true } = {}): void {
    if (byMiddleware) this.active = false;
    this.fire('connect_error', new Error(message));
  }
}
