/**
 * One scrcpy-server session on one phone: copies the pinned server file, starts it on a shell of its own, connects
 * to its `localabstract:scrcpy_<scid>` video and control sockets through the transport, and relays H.264 packets to
 * its watchers without decoding them. "The phone's screen as the browser sees it" (packets) and "an input sent to the
 * phone" (control messages) both go through here.
 *
 * A watcher who joins gets the codec configuration and the packets since the last key frame; the encoder is asked for
 * a new key frame (reset video, which restarts it for every watcher) only when that cache cannot serve: no key frame
 * cached, or one too old. A watcher whose backlog passes its limit is skipped until the next key frame instead of
 * queueing; the configuration always reaches it. Every failure (a packet that is not the protocol, a server that dies) ends this session
 * with a reason and touches no other phone.
 */
import type { Duplex } from 'node:stream';
import { configFacts } from '../live.h264.ts';
import type { LiveVideoSession } from '../phone/phone.device.ts';
import {
  backOrScreenOnMessage,
  clipboardMessage,
  CONTROL_TYPE,
  KeyFrameCache,
  keyMessage,
  newScid,
  resetVideoMessage,
  rotateMessage,
  SCRCPY_PROFILES,
  SCRCPY_REMOTE_PATH,
  scrcpyCommand,
  scrcpySocketName,
  ScrcpyStreamError,
  ScrcpyVideoParser,
  scrollMessage,
  touchMessage,
  typeMessages,
  type ScrcpyPacket,
  type ScrcpyStreamKind,
  type ScrcpyVideoHeader,
  type ScreenPoint,
} from './adb.scrcpy.ts';

/** What a session needs of the phone (`AdbPhone` gives it through the live screen's `LivePhone`). */
export interface ScrcpyPhone {
  push(localPath: string, remotePath: string, mode: number): Promise<void>;
  shell(command: string): Promise<Duplex>;
  openLocal(path: string): Promise<Duplex>;
}

/** One receiver of a stream's packets (a socket towards the API). */
export interface ScrcpyWatcher {
  /** Sends one packet; answers the bytes still waiting to leave towards this watcher. */
  send(packet: ScrcpyPacket, header: ScrcpyVideoHeader): number;
}

export interface ScrcpySessionOptions {
  kind: ScrcpyStreamKind;
  /** The verified scrcpy-server file on this host. */
  serverFile: string;
  /** How long the server has to listen and send its header. */
  startTimeoutMs?: number;
  /** A watcher with more than this waiting is skipped to the next key frame. */
  watcherBacklogBytes?: number;
  maxPacketBytes?: number;
  log?: (message: string) => void;
  /** The clock the key-frame cache's age is read on (tests move it). */
  clock?: () => number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface WatcherState {
  watcher: ScrcpyWatcher;
  /** Skipping until a key frame (joined late with no cached key frame, or fell behind). */
  waitingForKeyFrame: boolean;
  skipped: number;
}

export class ScrcpySession {
  readonly scid = newScid();
  private shell: Duplex | null = null;
  private video: Duplex | null = null;
  private control: Duplex | null = null;
  private readonly cache: KeyFrameCache<ScrcpyPacket>;
  private readonly watchers = new Map<ScrcpyWatcher, WatcherState>();
  private readonly endedListeners = new Set<(reason: string) => void>();
  private serverWords = '';
  header: ScrcpyVideoHeader | null = null;
  /** The picture's size as last configured: the header's, then each configuration's SPS (a turned phone changes it). */
  size = { width: 0, height: 0 };
  endedWith: string | null = null;
  packets = 0;
  /** Pictures (not configurations) relayed so far. */
  pictures = 0;
  bytes = 0;

  constructor(
    private readonly phone: ScrcpyPhone,
    private readonly options: ScrcpySessionOptions,
  ) {
    this.cache = new KeyFrameCache<ScrcpyPacket>(undefined, options.clock);
  }

  /** Starts the server and waits for its video header; throws (and cleans up) when it does not come. */
  async start(): Promise<ScrcpyVideoHeader> {
    const limit = this.options.startTimeoutMs ?? 10_000;
    const deadline = Date.now() + limit;
    const profile = SCRCPY_PROFILES[this.options.kind];
    try {
      await this.phone.push(this.options.serverFile, SCRCPY_REMOTE_PATH, 0o644);
      const shell = await this.phone.shell(scrcpyCommand(this.scid, profile, true));
      this.shell = shell;
      shell.on('data', (chunk: Buffer | string) => {
        this.serverWords = `${this.serverWords}${chunk.toString()}`.slice(-500);
      });
      shell.on('close', () => this.end(`scrcpy-server stopped: ${this.serverWords.trim().split('\n').slice(-2).join(' ').slice(0, 200) || 'no output'}`));
      shell.on('error', () => undefined);
      const socket = scrcpySocketName(this.scid);
      // The server listens a moment after app_process starts: try until it accepts or the time is up.
      for (;;) {
        try {
          this.video = await this.phone.openLocal(socket);
          break;
        } catch (error) {
          if (this.endedWith) throw new ScrcpyStreamError(this.endedWith);
          if (Date.now() >= deadline)
            throw new ScrcpyStreamError(`scrcpy-server did not listen within ${limit} ms (${error instanceof Error ? error.message : String(error)}).`);
          await sleep(100);
        }
      }
      this.control = await this.phone.openLocal(socket);
      this.control.on('data', () => undefined); // device messages (clipboard, acks) are read and dropped
      this.control.on('error', () => undefined);
      const header = await this.readVideo(this.video, Math.max(1, deadline - Date.now()));
      this.header = header;
      if (this.size.width === 0) this.size = { width: header.width, height: header.height };
      return header;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.end(reason);
      throw error instanceof ScrcpyStreamError ? error : new ScrcpyStreamError(reason);
    }
  }

  private readVideo(video: Duplex, timeoutMs: number): Promise<ScrcpyVideoHeader> {
    const parser = new ScrcpyVideoParser({ dummyByte: true, maxPacketBytes: this.options.maxPacketBytes });
    return new Promise<ScrcpyVideoHeader>((resolve, reject) => {
      let started = false;
      const timer = setTimeout(() => {
        if (!started) reject(new ScrcpyStreamError(`scrcpy-server sent no video header within ${timeoutMs} ms.`));
      }, timeoutMs);
      video.on('data', (chunk: Buffer) => {
        if (this.endedWith) return;
        let parsed: ReturnType<ScrcpyVideoParser['push']>;
        try {
          parsed = parser.push(chunk);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          clearTimeout(timer);
          this.end(reason);
          if (!started) reject(new ScrcpyStreamError(reason));
          return;
        }
        if (parsed.header && !started) {
          started = true;
          clearTimeout(timer);
          this.header = parsed.header;
          this.size = { width: parsed.header.width, height: parsed.header.height };
          resolve(parsed.header);
        }
        for (const packet of parsed.packets) this.relay(packet);
      });
      const closed = () => {
        clearTimeout(timer);
        const reason = `The scrcpy video stream ended (${this.serverWords.trim().split('\n').slice(-1)[0]?.slice(0, 200) || 'the server died'}).`;
        this.end(reason);
        if (!started) reject(new ScrcpyStreamError(reason));
      };
      video.on('close', closed);
      video.on('end', closed);
      video.on('error', () => undefined);
    });
  }

  private relay(packet: ScrcpyPacket): void {
    this.packets += 1;
    if (!packet.config) this.pictures += 1;
    this.bytes += packet.data.length;
    if (packet.config) {
      const facts = configFacts(packet.data);
      if (facts && facts.width > 0 && facts.height > 0) this.size = { width: facts.width, height: facts.height };
    }
    this.cache.add(packet);
    const header = this.header;
    if (!header) return;
    const backlogLimit = this.options.watcherBacklogBytes ?? 2 * 1024 * 1024;
    for (const state of this.watchers.values()) {
      if (state.waitingForKeyFrame) {
        if (!packet.keyFrame && !packet.config) {
          state.skipped += 1;
          continue;
        }
        if (packet.keyFrame) state.waitingForKeyFrame = false;
      }
      const backlog = state.watcher.send(packet, header);
      if (backlog > backlogLimit) {
        // Too far behind: drop the pictures until the next key frame rather than queue them.
        state.waitingForKeyFrame = true;
      }
    }
  }

  /**
   * Adds a watcher: it is sent the configuration and the current group of pictures. A fresh key frame is asked for
   * only when the cache cannot serve it; before the first picture none is, as the encoder starts with one.
   */
  watch(watcher: ScrcpyWatcher): () => void {
    if (this.endedWith) throw new ScrcpyStreamError(this.endedWith);
    const cached = this.cache.snapshot();
    const state: WatcherState = { watcher, waitingForKeyFrame: !this.cache.hasKeyFrame, skipped: 0 };
    this.watchers.set(watcher, state);
    if (this.header) for (const packet of cached) watcher.send(packet, this.header);
    if (this.pictures > 0 && !this.cache.covers()) this.sendControl(resetVideoMessage());
    return () => {
      this.watchers.delete(watcher);
    };
  }

  get kind(): ScrcpyStreamKind {
    return this.options.kind;
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  onEnded(listener: (reason: string) => void): () => void {
    if (this.endedWith) listener(this.endedWith);
    else this.endedListeners.add(listener);
    return () => this.endedListeners.delete(listener);
  }

  // Input through the control socket: no shell command per action.
  tap(point: ScreenPoint): void {
    this.touch('down', point);
    this.touch('up', point);
  }

  touch(action: 'down' | 'move' | 'up', point: ScreenPoint): void {
    this.sendControl(touchMessage(action, point));
  }

  key(keycode: number): void {
    this.sendControl(keyMessage('down', keycode));
    this.sendControl(keyMessage('up', keycode));
  }

  scroll(point: ScreenPoint, horizontal: number, vertical: number): void {
    this.sendControl(scrollMessage(point, horizontal, vertical));
  }

  type(text: string): void {
    const messages = typeMessages(text);
    this.pasted = messages.some((message) => message[0] === CONTROL_TYPE.setClipboard);
    for (const message of messages) this.sendControl(message);
  }

  /** The last text typed went in by a paste (set the clipboard, then KEYCODE_PASTE), so the clipboard holds it. */
  private pasted = false;

  /** Empties the phone's clipboard when the last text typed was pasted; answers whether it did. */
  clearPasted(): boolean {
    if (!this.pasted) return false;
    this.pasted = false;
    this.sendControl(clipboardMessage('', false));
    return true;
  }

  back(): void {
    this.sendControl(backOrScreenOnMessage('down'));
    this.sendControl(backOrScreenOnMessage('up'));
  }

  /** KEYCODE_POWER. */
  power(): void {
    this.key(26);
  }

  rotate(): void {
    this.sendControl(rotateMessage());
  }

  /** Asks the encoder for a key frame now (scrcpy's reset video: the configuration and a key frame come next). */
  keyFrame(): void {
    this.sendControl(resetVideoMessage());
  }

  private sendControl(message: Buffer): void {
    if (this.endedWith || !this.control) throw new ScrcpyStreamError(this.endedWith ?? 'The scrcpy control socket is not open.');
    this.control.write(message);
  }

  /** Ends the session: closes both sockets and the server's shell (ending the shell ends app_process). */
  end(reason = 'The stream was stopped.'): void {
    if (this.endedWith) return;
    this.endedWith = reason;
    this.watchers.clear();
    this.video?.destroy();
    this.control?.destroy();
    this.shell?.destroy();
    this.options.log?.(`scrcpy session ${this.scid.toString(16)} ended: ${reason}`);
    for (const listener of this.endedListeners) listener(reason);
    this.endedListeners.clear();
  }
}

/** A scrcpy session as the agent's live screen uses it: packets with their picture size, and input in its pixels. */
export function asLiveVideoSession(session: ScrcpySession): LiveVideoSession {
  return {
    kind: session.kind,
    get size() {
      return session.size;
    },
    watch: (send) =>
      session.watch({
        send: (packet) => send({ config: packet.config, keyFrame: packet.keyFrame, ptsUs: packet.ptsUs, data: packet.data, ...session.size }),
      }),
    keyFrame: () => session.keyFrame(),
    touch: (action, x, y) => session.touch(action, { x, y, ...session.size }),
    scroll: (x, y, vertical) => session.scroll({ x, y, ...session.size }, 0, vertical),
    key: (keycode) => session.key(keycode),
    back: () => session.back(),
    type: (text) => session.type(text),
    clearPasted: () => session.clearPasted(),
    rotate: () => session.rotate(),
    onEnded: (listener) => session.onEnded(listener),
    end: (reason) => session.end(reason),
  };
}
