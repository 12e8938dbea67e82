/** A stand-in for a Socket.IO client socket: tests drive its connection and push server events by hand. */
type Listener = (...args: never[]) => void;
type AnyListener = (event: string, ...args: unknown[]) => void;

export class FakeSocket {
  connected = false;
  active = false;
  recovered = false;
  connectCalls = 0;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly anyListeners = new Set<AnyListener>();

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

  /** How many listeners are bound, over every event name (and onAny). */
  get listenerCount(): number {
    let count = this.anyListeners.size;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  private fire(event: string, ...args: unknown[]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) (listener as (...values: unknown[]) => void)(...args);
  }

  /** The server pushes an event: onAny listeners hear it, and listeners bound to its name. */
  push(event: string, payload: unknown): void {
    for (const listener of [...this.anyListeners]) listener(event, payload);
    this.fire(event, payload);
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
