import { describe, expect, it } from 'vitest';
import type { LiveScreenFrame } from '../phone/phone.device.ts';
import { LiveStream } from './live-stream.ts';

const frame = (): LiveScreenFrame => ({
  mime: 'image/jpeg',
  data: Buffer.from([0xff, 0xd8]),
  width: 324,
  height: 720,
  capturedAt: new Date().toISOString(),
  source: 'sim',
});
const until = async (check: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('the live stream', () => {
  it('sends one frame at a time at the rate asked, eases off when watchers are slow and comes back when they keep pace', async () => {
    let slow = true;
    let inFlight = 0;
    let most = 0;
    const opened: number[] = [];
    const stream = new LiveStream({
      open: async (settings) => {
        opened.push(settings.quality);
        return { next: async () => frame(), close: async () => undefined };
      },
      sender: {
        send: async () => {
          most = Math.max(most, ++inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight -= 1;
          return { ok: true, slow };
        },
      },
      inputSeqAt: () => undefined,
    });
    stream.start({ fps: 15, maxSide: 720, quality: 80 });
    await until(() => stream.quality <= 50);
    expect(stream.fps).toBeLessThan(15);
    expect(most).toBe(1);
    // Quality far from what the source encodes at: it is reopened at the new quality.
    expect(opened.length).toBeGreaterThan(1);
    slow = false;
    await until(() => stream.fps === 15 && stream.quality === 80, 12_000);
    await stream.stop();
    expect(stream.active).toBe(false);
  }, 20_000);

  it('stops by itself when the server says nobody watches, and marks frames with the input they show', async () => {
    const marks: (number | undefined)[] = [];
    let answers = 0;
    const stream = new LiveStream({
      open: async () => ({ next: async () => frame(), close: async () => undefined }),
      sender: {
        send: async (sent) => {
          marks.push(sent.inputSeq);
          return ++answers >= 3 ? { ok: false } : { ok: true };
        },
      },
      inputSeqAt: () => 7,
    });
    stream.start({ fps: 15, maxSide: 720, quality: 60 });
    await until(() => !stream.active);
    expect(answers).toBe(3);
    expect(marks).toEqual([7, 7, 7]);
  });
});
